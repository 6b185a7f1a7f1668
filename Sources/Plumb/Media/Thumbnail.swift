import Foundation
import GStreamer

/// A small JPEG of a recording's first keyframe (or of a still), for lists of files:
/// `filesrc ! decodebin ! videoconvert ! videoscale ! jpegenc ! appsink`, the first
/// picture taken and the pipeline stopped. Pixels as stored: a recording's rotation
/// is in its track matrix, which the decoder does not apply.
public enum Thumbnail {
    /// The JPEG bytes, `width` pixels wide (height to the aspect ratio).
    /// - Throws: `CaptureError` when the file has no decodable picture within `timeout`.
    public static func jpeg(of path: String, width: Int = 320, timeout: Duration = .seconds(15)) throws -> Data {
        let location = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let pipeline = try Pipeline.parse(
            "filesrc location=\"\(location)\" ! decodebin ! videoconvert ! videoscale "
            + "! video/x-raw,width=\(width),pixel-aspect-ratio=1/1 ! jpegenc quality=80 "
            + "! appsink name=out sync=false max-buffers=1 drop=false")
        defer { try? pipeline.setState(.null) }
        guard let element = pipeline.element(named: "out"), let sink = AppSink(element) else {
            throw CaptureError.invalidArgument("the thumbnail pipeline lacks its appsink")
        }
        try pipeline.setState(.playing, timeout: timeout)
        guard let data = sink.pull(timeout: timeout)?.buffer?.data, !data.isEmpty else {
            throw CaptureError.invalidArgument("\((path as NSString).lastPathComponent) has no picture to make a thumbnail of")
        }
        return data
    }
}
