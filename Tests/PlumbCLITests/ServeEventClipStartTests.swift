import Foundation
import PlumbTestSupport
import XCTest

/// An event clip's start (issue 26, "nothing lost"): whether it comes from the pre-record
/// ring on the main encoding or from the main encoding the trigger starts (`pre-seconds = 0`), its
/// first sample is a keyframe, its avcC holds the SPS and PPS that frame needs, and ffmpeg
/// decodes it from that first frame without a warning — read by ffprobe and ffmpeg.
final class ServeEventClipStartTests: XCTestCase {
    static let frame = 1 / ServeProcess.fps

    /// A ring of 2 s and a trigger: the clip starts on a keyframe with its parameter sets, at
    /// least pre-seconds before the trigger and at most a GOP (1 s) more: its frames end
    /// post-seconds after the trigger, so its duration bounds its start.
    func testAClipFromTheRingStartsOnAKeyframeWithItsParameterSets() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "2", "post-seconds": "1"]])
        let tap = try EventTap(serve, self)
        XCTAssertTrue(eventually("the ring to hold 2 s: \(serve.log)", timeout: .seconds(60)) {
            (self.events(serve)["ring_seconds"] as? Double ?? 0) >= 2
        })
        let path = try trigger(serve, tap)
        try assertStartsOnAKeyframeWithItsParameterSets(path)
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(path))
        XCTAssertGreaterThanOrEqual(duration, 2 + 1 - Self.frame - 0.05, "the first frame ≥ 2 s before the trigger")
        XCTAssertLessThanOrEqual(duration, 3 + 1 + 0.3, "the first frame at most a GOP more than 2 s before the trigger")
        print("event clip from the ring: \(duration) s, \(try IndependentReaders.ffprobeFrameCount(path)) frames")
    }

    /// `pre-seconds = 0`: no encoder runs between clips; the trigger starts the main encoding
    /// for the clip, and the clip still starts on a keyframe with its parameter sets.
    func testAClipWithoutPreRecordStartsOnAKeyframeWithItsParameterSets() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "0", "post-seconds": "2"]])
        let tap = try EventTap(serve, self)
        XCTAssertTrue(eventually("the camera to run: \(serve.log)", timeout: .seconds(60)) {
            (try? serve.curl("GET", "/status").json()["state"] as? String) == "running"
        })
        let idle = try serve.curl("GET", "/status").json()["running_encoders"] as? [Any]
        XCTAssertEqual(idle?.count, 0, "an encoder runs with no ring and no clip: \(idle ?? [])")
        let path = try trigger(serve, tap)
        try assertStartsOnAKeyframeWithItsParameterSets(path)
        let frames = try IndependentReaders.ffprobeFrameCount(path)
        XCTAssertGreaterThan(frames, 0)
        print("event clip without pre-record: \(try IndependentReaders.ffprobeDuration(path) ?? 0) s, \(frames) frames")
    }

    // MARK: Helpers

    private func events(_ serve: ServeProcess) -> [String: Any] {
        (try? serve.curl("GET", "/status").json())?["events"] as? [String: Any] ?? [:]
    }

    /// `POST /event`, then the finished clip's path once its `event` event came.
    private func trigger(_ serve: ServeProcess, _ tap: EventTap) throws -> String {
        let reply = try serve.curl("POST", "/event")
        XCTAssertEqual(reply.status, 200, reply.text)
        let name = try XCTUnwrap(try reply.json()["file"] as? String, reply.text)
        XCTAssertTrue(eventually(tap.raw + serve.log, timeout: .seconds(60)) { !tap.named("event").isEmpty })
        let facts = try XCTUnwrap(tap.named("event").first?.data["facts"] as? [String: Any])
        XCTAssertEqual(facts["state"] as? String, "finished", "\(facts)")
        return serve.folder.appendingPathComponent(name).path
    }

    /// The first packet is a keyframe and decodes as an I picture; the avcC (the MP4's
    /// decoder configuration, ffprobe's extradata) holds an SPS and a PPS; ffmpeg decodes the
    /// first frame and the whole clip with nothing to warn about.
    private func assertStartsOnAKeyframeWithItsParameterSets(_ path: String, file: StaticString = #filePath,
                                                            line: UInt = #line) throws {
        let packet = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                             "-show_entries", "packet=flags", "-of", "csv=p=0", path])
        XCTAssertTrue(packet.hasPrefix("K"), "the first packet's flags: \(packet)", file: file, line: line)
        let frame = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                                            "-show_entries", "frame=key_frame,pict_type", "-of", "csv=p=0", path])
        XCTAssertTrue(frame.hasPrefix("1,I"), "the first frame: \(frame)", file: file, line: line)
        XCTAssertEqual(try Self.avcCParameterSets(path), [7, 8], "the NAL types in the avcC", file: file, line: line)
        for extra in [["-frames:v", "1"], []] {
            let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", path] + extra
                                         + ["-f", "null", "-"])
            XCTAssertEqual(r.code, 0, r.stderr, file: file, line: line)
            XCTAssertEqual(r.stderr, "", "ffmpeg warned decoding \(extra.isEmpty ? "the clip" : "its first frame")",
                           file: file, line: line)
        }
    }

    /// The NAL unit types of the parameter sets in the first video stream's avcC
    /// (ISO/IEC 14496-15: version, profile, compatibility, level, length size, then the
    /// SPS count and each SPS with its 16-bit length, then the same for the PPS), as
    /// ffprobe dumps the extradata.
    static func avcCParameterSets(_ path: String) throws -> [UInt8] {
        let json = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_data",
                                           "-show_entries", "stream=extradata", "-of", "json", path])
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let dump = (root?["streams"] as? [[String: Any]])?.first?["extradata"] as? String ?? ""
        // Lines of "00000000: 0142 c015 ffe1 ...  .B......": eight groups of hex, then the text.
        let hex = dump.split(separator: "\n").compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(colon, offsetBy: 2)...].prefix(39).filter { $0 != " " })
        }.joined()
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { i -> UInt8? in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        guard bytes.count > 6, bytes[0] == 1 else { return [] }
        var types: [UInt8] = []
        var i = 5
        for countMask in [UInt8(0x1F), 0xFF] {  // the SPS count shares its byte with 3 reserved bits
            guard i < bytes.count else { break }
            let count = Int(bytes[i] & countMask)
            i += 1
            for _ in 0..<count {
                guard i + 2 < bytes.count else { return types }
                let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
                types.append(bytes[i + 2] & 0x1F)
                i += 2 + length
            }
        }
        return types
    }
}
