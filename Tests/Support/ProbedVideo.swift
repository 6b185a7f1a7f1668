import Foundation
import XCTest

/// What ffprobe (an independent reader) says about a video file.
public struct ProbedVideo {
    public var codec: String
    public var width: Int
    public var height: Int
    /// Packets ffprobe read (counted, not taken from the header).
    public var packets: Int
    /// From the first packet's time to the end of the last one.
    public var seconds: Double
    public var firstPacketIsKeyframe: Bool

    public init(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                         "stream=codec_name,width,height", "-of", "default=noprint_wrappers=1",
                                         url.path], file: file, line: line)
        var fields: [String: String] = [:]
        for l in stream.split(separator: "\n") {
            let kv = l.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        codec = fields["codec_name"] ?? ""
        width = Int(fields["width"] ?? "") ?? 0
        height = Int(fields["height"] ?? "") ?? 0
        let packets = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                          "packet=pts_time,duration_time,flags", "-of", "csv=p=0", url.path],
                              file: file, line: line)
        var first: Double?, end = 0.0, count = 0, firstKey = false
        for l in packets.split(separator: "\n") {
            let cols = l.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 3, let pts = Double(cols[0]) else { continue }
            let duration = Double(cols[1]) ?? 0
            if first == nil {
                first = pts
                firstKey = cols[2].contains("K")
            }
            first = min(first!, pts)
            end = max(end, pts + duration)
            count += 1
        }
        self.packets = count
        seconds = end - (first ?? 0)
        firstPacketIsKeyframe = firstKey
    }
}
