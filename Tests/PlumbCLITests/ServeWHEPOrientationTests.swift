import Foundation
import PlumbTestSupport
import XCTest

/// WHEP viewers whose offer has the RTP video-orientation extension (`urn:3gpp:video-orientation`,
/// 3GPP TS 26.114 CVO: Chromium offers it) get the device's turn as metadata in every packet
/// and the main encoding's unturned pixels, so a turned device runs one encoder for them
/// (issue 26); viewers without it still get turned pixels from the preview's own encoder.
/// Read by the peers themselves: aiortc viewers (Tests/Scripts/whep_viewers.py) that parse
/// each RTP packet's header, and Debian's chromium showing the video.
final class ServeWHEPOrientationTests: XCTestCase {
    /// One line of whep_viewers.py.
    struct Viewer: Decodable, CustomStringConvertible {
        var status: Int
        var frames: Int
        var width: Int?
        var height: Int?
        var answer_orientation: Bool?
        /// Runs of the extension's byte in arrival order: [byte or nil, packets].
        var orientations: [[Int?]]?
        var marked: Int?
        var marked_without: Int?
        var sizes: [String]?
        var deleted: Int?
        var error: String?

        var description: String {
            "\(status) \(frames) frames \(width ?? 0)x\(height ?? 0) sizes \(sizes ?? []) answer has the extension: "
                + "\(answer_orientation.map(String.init) ?? "-") bytes \(orientations ?? []) marked \(marked ?? 0) "
                + "(without \(marked_without ?? 0)) DELETE \(deleted.map(String.init) ?? "-") \(error ?? "")"
        }
    }

    /// The extension's byte (`0 0 0 0 C F R1 R0`) for a clockwise turn: R1 R0 in quarter turns.
    static func byte(_ degrees: Int) -> Int { degrees / 90 }

    static func decode(_ result: ProcessResult) throws -> [Viewer] {
        XCTAssertEqual(result.code, 0, result.stderr)
        return try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Viewer.self, from: Data($0.utf8)) }
    }

    /// whep_viewers.py with `arguments`, in the background; its result once it ends.
    func viewers(_ serve: ServeProcess, _ arguments: [String], timeout: TimeInterval = 150) throws -> () throws -> [Viewer] {
        let python = try TestVenv.ready()
        let (process, out, err) = try PlumbProcess.start(python, [TestVenv.script("whep_viewers.py").path, serve.http + "/whep"]
                                                         + arguments)
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        return { try Self.decode(PlumbProcess.finish(process, out, err, timeout: timeout)) }
    }

    /// Without pre-record, turned 90° from the start, then 270° while it watches: the
    /// viewer's answer has the extension, every RTP packet it receives (each frame's last,
    /// marked, one included) carries it — byte 1 until the turn, byte 3 after it, nothing
    /// else — and every frame it decodes is 320x240, the pixels as captured. One encoder
    /// runs, for it alone: the main one, started by the viewer and stopped after it left; the
    /// preview's own encoder never starts.
    func testAViewerTakingTheTurnAsMetadataGetsItInEveryPacketAndNoTurnedEncoderRuns() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "replay:-"], "events": ["pre-seconds": "0"]],
                                     withInput: true)
        serve.feed("0 -9.81 0 0")  // 90° clockwise
        eventually("the device turned 90°", timeout: .seconds(15)) {
            (try? serve.curl("GET", "/status").json()["orientation"] as? Int) == 90
        }
        serve.waitForRunningEncoders([])
        let ready = serve.dir.appendingPathComponent("viewer-ready")
        let result = try viewers(serve, ["1", "60", "--orientation", "7", "--ready", ready.path])
        eventually("60 packets at the viewer", timeout: .seconds(60)) { FileManager.default.fileExists(atPath: ready.path) }
        serve.waitForRunningEncoders(["x264enc h264 320x240: whep"])
        XCTAssertEqual(try serve.curl("GET", "/status").json()["preview_encoder"] as? String, "idle")

        serve.feed("100 9.81 0 0")  // 90° counter-clockwise: 270
        let viewer = try XCTUnwrap(try result().first)
        print("CVO viewer: \(viewer)")
        XCTAssertEqual(viewer.status, 201, "\(viewer)")
        XCTAssertEqual(viewer.answer_orientation, true, "the answer has a=extmap:7 urn:3gpp:video-orientation")
        let runs = viewer.orientations ?? []
        XCTAssertEqual(runs.map { $0.first ?? nil }, [Self.byte(90), Self.byte(270)], "the bytes in arrival order: \(runs)")
        for run in runs { XCTAssertGreaterThanOrEqual(run.last.flatMap { $0 } ?? 0, 30, "packets of each angle: \(runs)") }
        XCTAssertGreaterThan(viewer.marked ?? 0, 30, "\(viewer)")
        XCTAssertEqual(viewer.marked_without, 0, "every frame's last packet has the extension")
        XCTAssertEqual(viewer.sizes, ["320x240"], "the pixels as captured, across the turn")
        XCTAssertGreaterThan(viewer.frames, 30, "\(viewer)")
        XCTAssertEqual(viewer.deleted, 204)

        serve.waitForRunningEncoders([])  // 5 s after the viewer left
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertFalse(log.contains("preview encoder: running"), "the turned encoder ran:\n\(log)")
        XCTAssertTrue(log.contains("runs the main encoding for WebRTC viewers that take the turn as RTP metadata"), log)
        XCTAssertTrue(log.contains("webrtc: viewers that take the turn as RTP metadata take the main encoding"), log)
    }

    /// `fixed:90`, two viewers at once: the one whose offer lacks the extension gets the
    /// preview's turned pixels (240x320) from the preview's own encoder, the other the
    /// main encoding's 320x240 with byte 1 in every packet; `running_encoders` says each
    /// encoder feeds WebRTC.
    func testWithAFixedTurnAViewerWithoutTheExtensionStillGetsTurnedPixels() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "fixed:90"]])
        let ready = serve.dir.appendingPathComponent("viewer-ready")
        let metadata = try viewers(serve, ["1", "20", "--orientation", "3", "--ready", ready.path])
        let pixels = try viewers(serve, ["1", "20"])
        serve.waitForRunningEncoders(["x264enc h264 320x240: ring,whep", "x264enc h264 240x320: whep"])
        XCTAssertEqual(try serve.curl("GET", "/status").json()["preview_encoder"] as? String, "running")

        let plain = try XCTUnwrap(try pixels().first)
        let cvo = try XCTUnwrap(try metadata().first)
        print("fixed:90 viewers: without the extension \(plain); with it \(cvo)")
        XCTAssertEqual(plain.status, 201, "\(plain)")
        XCTAssertEqual(plain.width, 240, "turned pixels: \(plain)")
        XCTAssertEqual(plain.height, 320, "turned pixels: \(plain)")
        XCTAssertGreaterThan(plain.frames, 30, "\(plain)")
        XCTAssertEqual(cvo.answer_orientation, true, "\(cvo)")
        XCTAssertEqual(cvo.orientations?.map { $0.first ?? nil }, [Self.byte(90)], "\(cvo)")
        XCTAssertEqual(cvo.marked_without, 0, "\(cvo)")
        XCTAssertEqual(cvo.sizes, ["320x240"], "\(cvo)")
        XCTAssertGreaterThan(cvo.frames, 30, "\(cvo)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: ready.path))
    }

    /// `[preview] letterbox` promises a preview whose size never changes: a viewer offering
    /// the extension is not answered it and gets the preview's turned, letterboxed pixels
    /// from the preview's own encoder.
    func testWithLetterboxAViewerOfferingTheExtensionGetsTheTurnedCanvas() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "fixed:90"], "events": ["pre-seconds": "0"],
                                            "preview": ["letterbox": "true"]])
        let metadata = try viewers(serve, ["1", "12", "--orientation", "3"])
        serve.waitForRunningEncoders(["x264enc h264 320x240: whep"])
        XCTAssertEqual(try serve.curl("GET", "/status").json()["preview_encoder"] as? String, "running", "the preview's own")
        let viewer = try XCTUnwrap(try metadata().first)
        print("letterbox viewer: \(viewer)")
        XCTAssertEqual(viewer.status, 201, "\(viewer)")
        XCTAssertEqual(viewer.answer_orientation, false, "\(viewer)")
        XCTAssertEqual(viewer.orientations?.map { $0.first ?? nil }, [nil], "no packet carries the extension: \(viewer)")
        XCTAssertEqual(viewer.sizes, ["320x240"], "the canvas: \(viewer)")
        XCTAssertGreaterThan(viewer.frames, 30, "\(viewer)")
    }

    /// Chromium offers the extension on its own and applies it: a 320x240 camera turned 90°
    /// plays as `videoWidth` 240 × `videoHeight` 320 while the daemon runs one encoder (the
    /// main one, for the ring and WebRTC), and a turn back upright while it plays makes it
    /// 320x240 — the pixels never changed, only the packets' byte.
    func testChromiumShowsTheTurnFromTheExtensionWhileOneEncoderRuns() throws {
        let serve = try ServeProcess(self, ["rotation": ["accelerometer": "replay:-"]], withInput: true)
        serve.feed("0 -9.81 0 0")  // 90° clockwise
        eventually("the device turned 90°", timeout: .seconds(15)) {
            (try? serve.curl("GET", "/status").json()["orientation"] as? Int) == 90
        }
        let python = try TestVenv.ready()
        let signal = serve.dir.appendingPathComponent("browser-signal")
        let (browser, out, err) = try PlumbProcess.start(python, [TestVenv.script("whep_in_chromium.py").path,
                                                                  serve.http, signal.path])
        addTeardownBlock { if browser.isRunning { kill(browser.processIdentifier, SIGKILL) } }
        eventually("the browser to play, or exit", timeout: .seconds(120)) {
            (try? String(contentsOf: signal, encoding: .utf8)) == "playing" || !browser.isRunning
        }
        serve.waitForRunningEncoders(["x264enc h264 320x240: ring,whep"])
        let webrtc = try XCTUnwrap(try serve.curl("GET", "/status").json()["webrtc"] as? [String: Any])
        XCTAssertEqual(webrtc["connected"] as? Int, 1)

        serve.feed("100 0 9.81 0")  // upright
        try "turned".write(to: signal, atomically: true, encoding: .utf8)
        let result = PlumbProcess.finish(browser, out, err, timeout: 120)
        XCTAssertEqual(result.code, 0, result.stderr)
        let line = String(try XCTUnwrap(result.stdout.split(separator: "\n").last, result.stderr))
        print("chromium saw: \(line)")
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(seen["status"] as? Int, 201, line)
        let offered = try XCTUnwrap(seen["offer_orientation"] as? [String], line)
        XCTAssertEqual(offered.count, 1, "Chromium offers the extension: \(line)")
        XCTAssertEqual(seen["answer_orientation"] as? [String], offered, "answered with the offer's id")
        XCTAssertEqual(seen["video_width"] as? Int, 240, line)
        XCTAssertEqual(seen["video_height"] as? Int, 320, line)
        XCTAssertGreaterThan(seen["current_time_advance"] as? Double ?? 0, 1, "the video plays: \(line)")
        XCTAssertEqual(seen["turned"] as? Bool, true, line)
        XCTAssertEqual(seen["turned_width"] as? Int, 320, line)
        XCTAssertEqual(seen["turned_height"] as? Int, 240, line)
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertFalse(log.contains("preview encoder: running"), "the turned encoder ran:\n\(log)")
    }
}
