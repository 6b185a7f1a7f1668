import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import PlumbMedia

/// A small JPEG of a recording's first keyframe (or of a still), for lists of files:
/// `filesrc ! decodebin ! videoconvert ! videoscale ! jpegenc ! appsink`, the first
/// picture taken and the pipeline stopped. Pixels as stored: a recording's rotation
/// is in its track matrix, which the decoder does not apply.
///
/// A damaged file fails with its reason, never by sitting out the time-out: an MP4 without
/// a movie header (cut before mp4mux wrote one, or fragments alone) is refused by reading
/// it — decodebin drops qtdemux's "no playable streams" when qtdemux posts it while decodebin
/// is still plugging it in (as it does now and then), and the pipeline then waits forever —
/// and an error the bus carries while the first picture is awaited ends the wait.
public enum Thumbnail {
    /// The JPEG bytes, `width` pixels wide (height to the aspect ratio).
    /// - Throws: `CaptureError.invalidArgument` naming the file and what is wrong with it
    ///   when it has no decodable picture; `timedOut` only when decoding takes longer than
    ///   `timeout`.
    public static func jpeg(of path: String, width: Int = 320, timeout: Duration = .seconds(15)) throws -> Data {
        let name = Path.name(path)
        if ["mp4", "mov", "m4v"].contains(Path.extension(path).lowercased()), !MP4File.hasMovieHeader(path: path) {
            throw CaptureError.invalidArgument("\(name) has no movie header (it was cut before one was written, or is "
                                               + "not an MP4): no picture to make a thumbnail of; plumb repair may mend it")
        }
        let location = path.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let pipeline = try Pipeline.parse(
            "filesrc location=\"\(location)\" ! decodebin ! videoconvert ! videoscale "
            + "! video/x-raw,width=\(width),pixel-aspect-ratio=1/1 ! jpegenc quality=80 "
            + "! appsink name=out sync=false max-buffers=1 drop=false")
        defer { try? pipeline.setState(.null) }
        guard let element = pipeline.element(named: "out"), let sink = AppSink(element) else {
            throw CaptureError.invalidArgument("the thumbnail pipeline lacks its appsink")
        }
        let sample: Sample?
        do {
            try pipeline.setState(.playing, timeout: timeout)
            sample = try sink.pull(timeout: timeout, failingOnErrorsOf: pipeline)
        } catch let error where error.isOwn(.stateChangeTimedOut) {
            throw CaptureError.timedOut("a thumbnail of \(name)", timeout)
        } catch {
            throw CaptureError.invalidArgument("\(name) cannot be decoded into a thumbnail: \(error.message)")
        }
        guard let data = sample?.buffer?.data, !data.isEmpty else {
            guard sink.isEOS else { throw CaptureError.timedOut("a thumbnail of \(name)", timeout) }
            throw CaptureError.invalidArgument("\(name) has no picture to make a thumbnail of")
        }
        return data
    }
}
