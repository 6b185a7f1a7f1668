import Foundation
import PlumbTestSupport
import XCTest

/// A preview consumer's start, read from the bytes it received (issue 26, "nothing lost"):
/// whichever encoder feeds RTSP, a new consumer's first access unit carries SPS and PPS
/// before its first slice, that slice is an IDR, and ffmpeg decodes the stream cleanly.
final class ServePreviewStartTests: XCTestCase {
    /// The H.264 NAL unit types (ITU-T H.264 table 7-1) of an Annex B byte stream, in order.
    static func nalTypes(_ data: Data) -> [UInt8] { nalUnits(data).map(\.type) }

    /// Each NAL unit's type and the offset of its 3-byte start code.
    static func nalUnits(_ data: Data) -> [(type: UInt8, offset: Int)] {
        let bytes = [UInt8](data)
        var units: [(type: UInt8, offset: Int)] = []
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                units.append((bytes[i + 3] & 0x1F, i))
                i += 3
            } else {
                i += 1
            }
        }
        return units
    }

    /// Whether a stream starts clean: SPS (7) and PPS (8) come before the first slice,
    /// and that first slice (1 or 5) is an IDR (5).
    static func startsOnKeyframeWithParameterSets(_ types: [UInt8]) -> Bool {
        guard let slice = types.firstIndex(where: { $0 == 1 || $0 == 5 }) else { return false }
        let before = types[..<slice]
        return types[slice] == 5 && before.contains(7) && before.contains(8)
    }

    func testAnRTSPConsumerStartsOnAKeyframeWithItsParameterSets() throws {
        let serve = try ServeProcess(self)
        let dir = try temporaryDirectory(self)
        let stream = dir.appendingPathComponent("first.h264")
        let (client, out, err) = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "-e", "rtspsrc", "location=\(serve.rtsp)", "protocols=tcp", "latency=0", "!",
            "rtph264depay", "!", "h264parse", "!", "video/x-h264,stream-format=byte-stream,alignment=au", "!",
            "filesink", "location=\(stream.path)",
        ])
        defer { if client.isRunning { client.terminate() } }
        // A second of frames (some kilobytes at 320x240) is more than the first access unit.
        XCTAssertTrue(eventually("the consumer's file grows", timeout: .seconds(60)) {
            ((try? FileManager.default.attributesOfItem(atPath: stream.path)[.size] as? Int) ?? 0) > 20_000
        })
        client.interrupt()
        _ = PlumbProcess.finish(client, out, err, timeout: 30)

        let types = Self.nalTypes(try Data(contentsOf: stream))
        XCTAssertTrue(Self.startsOnKeyframeWithParameterSets(types), "first NAL types: \(types.prefix(12))")
        let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"),
                                           ["-nostdin", "-v", "warning", "-i", stream.path, "-f", "null", "-"])
        XCTAssertEqual(decoded.stderr, "", "ffmpeg warns decoding the consumer's stream")

        // Both checks can fail: the same bytes cut at the first non-IDR slice (a consumer
        // started off a keyframe) fail the NAL check, and ffmpeg warns decoding them.
        let all = try Data(contentsOf: stream)
        let offset = try XCTUnwrap(Self.nalUnits(all).first { $0.type == 1 }?.offset, "no P slice: \(types.prefix(40))")
        let cut = dir.appendingPathComponent("cut.h264")
        try all.subdata(in: offset..<all.count).write(to: cut)
        XCTAssertFalse(Self.startsOnKeyframeWithParameterSets(Self.nalTypes(try Data(contentsOf: cut))))
        let broken = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"),
                                          ["-nostdin", "-v", "warning", "-i", cut.path, "-f", "null", "-"])
        XCTAssertNotEqual(broken.stderr, "", "ffmpeg is silent on a stream without its parameter sets")
    }
}
