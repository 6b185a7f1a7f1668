import Foundation
import PlumbTestSupport
import XCTest

/// A preview consumer's start, read from the bytes it received (issue 26, "nothing lost"):
/// whichever encoder feeds RTSP or WebRTC, a new consumer's first access unit carries SPS
/// and PPS before its first slice, that slice is an IDR, and ffmpeg decodes the stream
/// cleanly; a WebRTC viewer moved to another encoder by a turn starts on one again.
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

    /// An aiortc viewer (a real WebRTC peer, Tests/Scripts/whep_viewers.py) joins while the
    /// preview shares the main encoding (upright), watches across a turn (the preview moves
    /// to its own, turned encoder) and a turn back, and dumps every access unit as it
    /// depayloaded it. ffprobe splits and decodes the dump: at its start and at each change
    /// of size (each move to another encoder) the frame is an I frame whose access unit holds
    /// SPS and PPS before an IDR; ffmpeg decodes all of it without a warning.
    func testAWHEPViewerStartsOnAKeyframeWithItsParameterSetsAndAgainAfterEachTurn() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "replay:-"]], withInput: true)
        serve.feed("0 0 9.81 0")  // upright
        let dir = try temporaryDirectory(self)
        let dump = dir.appendingPathComponent("decoder-0.h264"), done = dir.appendingPathComponent("done")
        let (viewer, out, err) = try PlumbProcess.start(try TestVenv.ready(), [
            TestVenv.script("whep_viewers.py").path, serve.http + "/whep", "1", "300", "--dump", dir.path, "--until", done.path,
        ])
        defer { if viewer.isRunning { viewer.terminate() } }
        // Each phase lasts until the viewer has a second of frames of its size after the last change.
        func sizes() -> [String] { ((try? Self.frames(dump.path)) ?? []).map(\.size) }
        // The encoder feeding the viewer, from `GET /status`: "WxH: feeds".
        func whepEncoder() -> String? {
            let encoders = (try? serve.curl("GET", "/status").json())?["running_encoders"] as? [[String: Any]] ?? []
            return encoders.first { ($0["feeds"] as? [String])?.contains("whep") == true }.map {
                "\($0["width"] ?? "?")x\($0["height"] ?? "?"): " + ($0["feeds"] as? [String] ?? []).sorted().joined(separator: ",")
            }
        }
        for (sample, size, encoder, phase) in [(nil, "320x240", "320x240: ring,whep", 1), ("100 -9.81 0 0", "240x320", "240x320: whep", 2),
                                               ("200 0 9.81 0", "320x240", "320x240: ring,whep", 3)] {
            if let sample { serve.feed(sample) }
            XCTAssertTrue(eventually("a second of \(size) frames in phase \(phase) of the dump: \(serve.log)", timeout: .seconds(60)) {
                let runs = sizes().reduce(into: [(size: String, count: Int)]()) {
                    if $0.last?.size == $1 { $0[$0.count - 1].count += 1 } else { $0.append(($1, 1)) }
                }
                return runs.count == phase && runs.last?.size == size && (runs.last?.count ?? 0) >= 30
            })
            XCTAssertEqual(whepEncoder(), encoder, "phase \(phase): the main encoding (with the ring) upright, the preview's own turned")
        }
        try Data().write(to: done)
        let watched = PlumbProcess.finish(viewer, out, err, timeout: 60)
        XCTAssertEqual(watched.code, 0, watched.stderr)
        XCTAssertTrue(watched.stdout.contains("\"status\": 201") && watched.stdout.contains("\"deleted\": 204"), watched.stdout)
        XCTAssertTrue(serve.log.contains("preview: its consumers take the main encoding"), serve.log)
        XCTAssertTrue(serve.log.contains("preview: the device is turned 90 degrees"), serve.log)

        let frames = try Self.frames(dump.path)
        let packets = try Self.packets(dump.path)
        XCTAssertEqual(packets.count, frames.count, "every access unit decoded to one frame")
        let stream = try Data(contentsOf: dump)
        let starts = frames.indices.filter { $0 == 0 || frames[$0].size != frames[$0 - 1].size }
        XCTAssertEqual(starts.map { frames[$0].size }, ["320x240", "240x320", "320x240"])
        for i in starts where i < packets.count {
            XCTAssertTrue(frames[i].key, "frame \(i), the first at \(frames[i].size), is \(frames[i].type)")
            let unit = stream.subdata(in: packets[i].pos..<min(stream.count, packets[i].pos + packets[i].size))
            XCTAssertTrue(Self.startsOnKeyframeWithParameterSets(Self.nalTypes(unit)),
                          "frame \(i) at \(frames[i].size): NAL types \(Self.nalTypes(unit))")
        }
        let decoded = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", dump.path, "-f", "null", "-"])
        XCTAssertEqual(decoded.stderr, "", "ffmpeg warns decoding what the viewer got")
        print("WHEP viewer across turns: \(frames.count) frames, encoders started at frames \(starts)")
    }

    /// The frames ffprobe decodes from an Annex B file, in order.
    static func frames(_ path: String) throws -> [(size: String, key: Bool, type: String)] {
        try ffprobeEntries(path, "frame=width,height,key_frame,pict_type", section: "frames").map {
            ("\($0["width"] ?? "?")x\($0["height"] ?? "?")", $0["key_frame"] as? Int == 1, $0["pict_type"] as? String ?? "?")
        }
    }

    /// The access units ffprobe's H.264 parser cuts an Annex B file into: offset and length.
    static func packets(_ path: String) throws -> [(pos: Int, size: Int)] {
        try ffprobeEntries(path, "packet=pos,size", section: "packets").map {
            (Int($0["pos"] as? String ?? "") ?? 0, Int($0["size"] as? String ?? "") ?? 0)
        }
    }

    private static func ffprobeEntries(_ path: String, _ entries: String, section: String) throws -> [[String: Any]] {
        let json = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_entries", entries, "-of", "json", path]).stdout
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return root?[section] as? [[String: Any]] ?? []
    }
}
