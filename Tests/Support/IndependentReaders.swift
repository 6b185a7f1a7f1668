import Foundation
import XCTest
import PlumbRotation

/// Readers that are not Plumb's: ffprobe and exiftool, as the standards require.
public enum IndependentReaders {
    /// ffprobe's displaymatrix rotation of the first video stream, counter-clockwise degrees
    /// (0 when the stream has no display matrix side data, as for an identity matrix).
    public static func ffprobeRotation(_ path: String) throws -> Int {
        let json = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path])
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        guard let stream = (root?["streams"] as? [[String: Any]])?.first else {
            throw ToolError("ffprobe found no video stream in \(path)")
        }
        let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
        guard let matrix = sideData.first(where: { $0["side_data_type"] as? String == "Display Matrix" }) else {
            return 0
        }
        return (matrix["rotation"] as? NSNumber)?.intValue ?? 0
    }

    /// ffprobe's rotation as Plumb's clockwise angle: ffprobe counts counter-clockwise.
    public static func ffprobeClockwise(_ path: String) throws -> RotationAngle? {
        RotationAngle(degrees: -(try ffprobeRotation(path)))
    }

    /// How many video packets ffprobe reads: the file is intact and playable to the end.
    public static func ffprobePacketCount(_ path: String) throws -> Int {
        let text = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_packets",
                                       "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        // With side data the csv line ends in a comma: "30,".
        return Int(text.prefix(while: \.isNumber)) ?? -1
    }

    /// How many video frames ffprobe decodes (0 when it cannot read the file at all).
    public static func ffprobeFrameCount(_ path: String) throws -> Int {
        // A file cut before its header is no error here: it holds no frame.
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "quiet", "-select_streams", "v:0",
                                     "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(r.stdout.prefix(while: \.isNumber)) ?? 0
    }

    /// `exiftool -n -s3 -TAG`: the tag's numeric value, nil when the file has no such tag.
    public static func exiftool(_ tag: String, _ path: String) throws -> Int? {
        let text = try runTool("exiftool", ["-n", "-s3", "-\(tag)", path])
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs gst-launch-1.0 with a description split into arguments as a shell would.
    public static func gstLaunch(_ description: String) throws {
        try runTool("gst-launch-1.0", ["-q"] + description.split(separator: " ").map(String.init))
    }
}

/// A reader's answer that a test cannot use.
public struct ToolError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
