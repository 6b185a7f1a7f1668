import Foundation
import PlumbTestSupport
import XCTest
@testable import Plumb
import PlumbRotation
@testable import PlumbService

/// Which encoders the daemon runs, read from `GET /status`'s `running_encoders` (the
/// elements in the session's pipeline): none that nothing needs, and what each feeds.
final class ServeEncodersTests: XCTestCase {
    /// GET /status's `running_encoders`, each as "element codec WxH: feeds".
    static func running(_ address: String) async throws -> [String] {
        let response = try await ServiceClient.curl([address + "/status"])
        XCTAssertEqual(response.status, 200, response.text)
        let json = try response.json()
        let encoders = try XCTUnwrap(json["encoders"] as? [String: [String: Any]], response.text)
        XCTAssertNotNil(encoders["preview"]?["encoder"], "the start-up choice is still there: \(response.text)")
        XCTAssertNotNil(encoders["recording"]?["encoder"], "the start-up choice is still there: \(response.text)")
        let running = try XCTUnwrap(json["running_encoders"] as? [[String: Any]], response.text)
        return running.map { e in
            let feeds = (e["feeds"] as? [String] ?? []).joined(separator: ",")
            return "\(e["element"] ?? "?") \(e["codec"] ?? "?") \(e["width"] ?? "?")x\(e["height"] ?? "?"): \(feeds)"
        }.sorted()
    }

    /// Polls `GET /status` until the running encoders are `expected`; the last list otherwise.
    static func waitForRunning(_ address: String, _ expected: [String], timeout: Duration = .seconds(30)) async throws -> [String] {
        var last: [String] = []
        try await eventually("the running encoders to be \(expected)", timeout: timeout, every: .milliseconds(100)) {
            last = try await running(address)
            return last == expected
        }
        return last
    }

    static func start(preSeconds: Double, folder: URL, lines: ServeDaemonTests.Lines) async throws
        -> (daemon: ServeDaemon, addresses: ServeDaemon.Addresses) {
        var config = ServeDaemonTests.config(folder: folder)
        config.recording.continuous = false
        config.events.preSeconds = preSeconds
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: lines.add)
        let addresses = try await daemon.start()
        guard case .running(let session) = daemon.camera.current else {
            await daemon.shutdown()
            throw CaptureError.closed
        }
        try await session.waitForFrames(10)
        return (daemon, addresses)
    }

    /// `[events] pre-seconds = 0`, nothing recording or watching: no encoder at all. An event
    /// starts one for its clip (which starts on a keyframe), and it stops once the clip is written.
    func testWithoutPreRecordNothingIdleEncodes() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        do {
            let idle = try await Self.running(http)
            XCTAssertEqual(idle, [], "\(lines.all)")
            XCTAssertTrue(lines.contains("encoder: no pre-record encoder runs ([events] pre-seconds = 0)"), "\(lines.all)")

            let answer = try await ServiceClient.curl(["-X", "POST", http + "/event?post-seconds=1"])
            XCTAssertEqual(answer.status, 200, answer.text)
            let file = try XCTUnwrap(try answer.json()["file"] as? String, answer.text)
            // The clip is written, then the encoder goes.
            let after = try await Self.waitForRunning(http, [])
            XCTAssertEqual(after, [], "\(lines.all)")
            XCTAssertTrue(lines.contains("started for an event clip"), "\(lines.all)")
            XCTAssertTrue(lines.contains("for event clips stopped"), "\(lines.all)")
            let path = dir.appendingPathComponent(file).path
            await eventually("the clip \(file)") { FileManager.default.fileExists(atPath: path) }
            XCTAssertGreaterThan(try IndependentReaders.ffprobeFrameCount(path), 20, file)
            XCTAssertEqual(try ffprobeFirstFrameIsKey(path), true, file)
        } catch {
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }

    /// The main encoding alone while idle, feeding the ring; the recording's beside it; an
    /// RTSP consumer (rtspsrc) of the upright preview takes the main encoding too (issue 26):
    /// no third encoder, the main one feeds "ring" and "rtsp".
    func testStatusListsTheRunningEncodersAndWhatTheyFeed() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 2, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        var consumer: ServiceClient.Child?
        do {
            let ring = "x264enc h264 320x240: ring"
            let idle = try await Self.running(http)
            XCTAssertEqual(idle, [ring], "\(lines.all)")
            XCTAssertTrue(lines.contains("encoder: x264enc (h264) runs the main encoding for the pre-record ring ([events] pre-seconds = 2.0)"),
                          "\(lines.all)")

            let started = try await ServiceClient.curl(["-X", "POST", http + "/recording/start"])
            XCTAssertEqual(started.status, 200, started.text)
            let recording = "x264enc h264 320x240: recording"
            let recorded = try await Self.waitForRunning(http, [ring, recording].sorted())
            XCTAssertEqual(recorded, [ring, recording].sorted())

            consumer = try ServiceClient.Child("/usr/bin/gst-launch-1.0", ["-q", "rtspsrc", "location=\(addresses.rtsp)",
                                                                           "protocols=tcp", "!", "fakesink"])
            let shared = "x264enc h264 320x240: ring,rtsp"
            let watched = try await Self.waitForRunning(http, [shared, recording].sorted())
            XCTAssertEqual(watched, [shared, recording].sorted(), "\(lines.all)")
        } catch {
            consumer?.kill()
            await daemon.shutdown()
            throw error
        }
        consumer?.kill()
        await daemon.shutdown()
    }

    /// `[events] pre-seconds = 0`: an upright preview's consumer attaches the main encoding on
    /// its own (feeding only "rtsp"), and it goes once nobody has taken it for the linger,
    /// the log saying why (issue 26).
    func testWithoutPreRecordTheMainEncodingRunsOnlyForThePreview() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        var consumer: ServiceClient.Child?
        do {
            let idle = try await Self.running(http)
            XCTAssertEqual(idle, [], "\(lines.all)")
            consumer = try ServiceClient.Child("/usr/bin/gst-launch-1.0", ["-q", "rtspsrc", "location=\(addresses.rtsp)",
                                                                           "protocols=tcp", "!", "fakesink"])
            let watched = try await Self.waitForRunning(http, ["x264enc h264 320x240: rtsp"])
            XCTAssertEqual(watched, ["x264enc h264 320x240: rtsp"], "\(lines.all)")
            XCTAssertTrue(lines.contains("runs the main encoding for the preview's consumers"), "\(lines.all)")
            consumer?.kill()
            consumer = nil
            let after = try await Self.waitForRunning(http, [])
            XCTAssertEqual(after, [], "\(lines.all)")
            XCTAssertTrue(lines.contains("of the main encoding stopped: nothing took it for 5.0 seconds"), "\(lines.all)")
        } catch {
            consumer?.kill()
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }

    /// Whether ffprobe reads the first video frame as a keyframe.
    func ffprobeFirstFrameIsKey(_ path: String) throws -> Bool? {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame",
            "-of", "csv=p=0", path,
        ])
        // "1," (a field for side data follows).
        return r.stdout.split(separator: "\n").first.map { $0.split(separator: ",").first == "1" }
    }
}
