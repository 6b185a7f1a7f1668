import Foundation
import XCTest

/// Recordings as Plumb's muxer leaves them, made by real pipelines: `videotestsrc` through
/// the encoder, the parser and `mp4mux fragment-mode=first-moov-then-finalise` (one keyframe
/// per fragment, as `RecordingOutput` records) into a file.
public enum MuxedRecording {
    /// A recording as a crash leaves it: an `identity error-after` between the muxer and the
    /// file fails the muxer's `writes`-th output buffer, as if the process died before
    /// writing it, and mp4mux stops there without finalizing the file. So the file holds
    /// what `kill -9` at that moment leaves: the whole fragments with their `moof`, then the
    /// frames of the fragment being written (its `moof` comes after them).
    public static func crashed(_ path: String, writes: Int, fragment: Int = 15, codec: String = "h264",
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try PlumbProcess.run(PlumbProcess.tool("gst-launch-1.0"), ["-q"] + pipeline(
            path, codec: codec, fragment: fragment, frames: 300, after: "identity error-after=\(writes) !"))
        XCTAssertNotEqual(r.code, 0, "the pipeline was meant to fail at its write \(writes)", file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), r.stderr, file: file, line: line)
    }

    /// A recording stopped cleanly (EOS): a normal MP4.
    public static func finished(_ path: String, frames: Int, fragment: Int = 15, codec: String = "h264",
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try PlumbProcess.run(PlumbProcess.tool("gst-launch-1.0"), ["-q"] + pipeline(
            path, codec: codec, fragment: fragment, frames: frames, after: ""))
        XCTAssertEqual(r.code, 0, r.stderr, file: file, line: line)
    }

    /// A live recording into `path` that goes on until the process is killed.
    public static func live(_ path: String) throws -> Process {
        let p = Process()
        p.executableURL = PlumbProcess.tool("gst-launch-1.0")
        p.arguments = ["-q"] + pipeline(path, codec: "h264", fragment: 15, frames: -1, after: "", live: true)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// 30 fps, `fragment` frames per fragment and between keyframes.
    static func pipeline(_ path: String, codec: String, fragment: Int, frames: Int, after: String, live: Bool = false)
        -> [String]
    {
        let (encoder, parser) = codec == "h265" ? ("x265enc", "h265parse") : ("x264enc", "h264parse")
        let milliseconds = fragment * 1000 / 30
        return ("videotestsrc num-buffers=\(frames) is-live=\(live) ! video/x-raw,width=320,height=240,framerate=30/1 "
            + "! \(encoder) tune=zerolatency speed-preset=ultrafast key-int-max=\(fragment) ! \(parser) "
            + "! mp4mux fragment-duration=\(milliseconds) fragment-mode=first-moov-then-finalise ! \(after) "
            + "filesink location=\(path)").split(separator: " ").map(String.init)
    }
}
