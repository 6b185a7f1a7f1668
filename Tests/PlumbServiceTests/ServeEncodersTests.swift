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
    /// clip takes the main encoding for its time (issue 26): one encoder, feeding "event-clip"
    /// and nothing else, started for it (a second trigger extends the clip on it); the clip
    /// starts on a keyframe and decodes without a word; once it is written and the linger
    /// has passed, no encoder runs.
    func testWithoutPreRecordNothingIdleEncodes() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        do {
            let idle = try await Self.running(http)
            XCTAssertEqual(idle, [], "\(lines.all)")
            XCTAssertTrue(lines.contains("encoder: no pre-record ring ([events] pre-seconds = 0)"), "\(lines.all)")

            let file = try await Self.trigger(http, postSeconds: 4)
            let path = dir.appendingPathComponent(file).path
            // A second trigger during the clip joins it (its end stays the later one): no new take.
            let again = try await ServiceClient.curl(["-X", "POST", http + "/event?post-seconds=1"])
            XCTAssertEqual(again.status, 200, again.text)
            XCTAssertEqual(try again.json()["extended"] as? Bool, true, again.text)
            XCTAssertEqual(try again.json()["file"] as? String, file, again.text)
            // Every list seen from the trigger until the clip is written and no encoder runs:
            // the main one feeding the clip, then lingering (feeding nothing), then none.
            let clip = "x264enc h264 320x240: event-clip", lingering = "x264enc h264 320x240: "
            var seen: Set<[String]> = []
            let ended = try await eventually("the clip written and no encoder running", timeout: .seconds(60),
                                             every: .milliseconds(100)) {
                let now = try await Self.running(http)
                seen.insert(now)
                return now.isEmpty && FileManager.default.fileExists(atPath: path)
            }
            XCTAssertTrue(ended, "\(seen) \(lines.all)")
            XCTAssertTrue(seen.contains([clip]), "\(seen)")
            XCTAssertEqual(seen.subtracting([[clip], [lingering], []]), [], "only the main encoding ever ran: \(lines.all)")
            XCTAssertTrue(lines.contains("encoder: x264enc (h264) runs the main encoding for an event clip ([events] pre-seconds = 0)"),
                          "\(lines.all)")
            try await checkClip(path, frames: Self.fourSeconds)
            XCTAssertTrue(lines.contains("encoder: no event clip takes the main encoding any more"), "\(lines.all)")
            XCTAssertTrue(lines.contains("of the main encoding stopped: nothing took it for 5.0 seconds (no pre-record ring, "
                                         + "no event clip, no preview consumer or WebRTC viewer)"), "\(lines.all)")
            XCTAssertFalse(lines.contains("event_encoder"), "\(lines.all)")
        } catch {
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }

    /// `[events] pre-seconds = 0` with an upright preview's consumer (rtspsrc): an event clip
    /// joins the main encoding the consumer already takes (issue 26): still one encoder, feeding
    /// "event-clip" and "rtsp"; the clip starts on a keyframe asked for at its trigger; once
    /// it is written and the consumer has gone, no encoder runs after the linger.
    func testWithoutPreRecordAnEventClipSharesTheUprightPreviewsEncoding() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        var consumer: ServiceClient.Child?
        do {
            consumer = try ServiceClient.Child("/usr/bin/gst-launch-1.0", ["-q", "rtspsrc", "location=\(addresses.rtsp)",
                                                                           "protocols=tcp", "!", "fakesink"])
            let watched = try await Self.waitForRunning(http, ["x264enc h264 320x240: rtsp"])
            XCTAssertEqual(watched, ["x264enc h264 320x240: rtsp"], "\(lines.all)")

            let file = try await Self.trigger(http, postSeconds: 4)
            let path = dir.appendingPathComponent(file).path
            // Every list seen from the trigger until the clip is written: one encoder throughout.
            let shared = "x264enc h264 320x240: event-clip,rtsp", rtsp = "x264enc h264 320x240: rtsp"
            var seen: Set<[String]> = []
            let written = try await eventually("the clip written and the encoder feeding only rtsp", timeout: .seconds(60),
                                               every: .milliseconds(100)) {
                let now = try await Self.running(http)
                seen.insert(now)
                return now == [rtsp] && FileManager.default.fileExists(atPath: path)
            }
            XCTAssertTrue(written, "\(seen) \(lines.all)")
            XCTAssertTrue(seen.contains([shared]), "\(seen)")
            XCTAssertEqual(seen.subtracting([[shared], [rtsp]]), [], "only the main encoding ever ran: \(lines.all)")
            try await checkClip(path, frames: Self.fourSeconds)
            XCTAssertFalse(lines.contains("runs the main encoding for an event clip"),
                           "the encoding ran already: the clip only joined it: \(lines.all)")

            consumer?.kill()
            consumer = nil
            let after = try await Self.waitForRunning(http, [])
            XCTAssertEqual(after, [], "\(lines.all)")
        } catch {
            consumer?.kill()
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }

    /// A continuous recording and a `POST /clip` share one encoder (issue 26): the recording's
    /// runs the main encoding and the clip takes it, "recording,clip" while it records, and
    /// "recording" again once it is answered. The clip is a whole MP4 an outside reader plays
    /// from a keyframe, with the frames its facts say.
    func testARecordingAndAClipShareOneEncoder() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        var config = ServeDaemonTests.config(folder: dir)
        config.events.preSeconds = 0
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: lines.add)
        try await Self.shuttingDown(daemon) {
            let http = try await daemon.start().http.httpURL
            let recording = "x264enc h264 320x240: recording"
            let started = try await Self.waitForRunning(http, [recording])
            XCTAssertEqual(started, [recording], "\(lines.all)")
            let file = dir.appendingPathComponent("answer.mp4").path
            let answer = Task { try await ServiceClient.curl(["-X", "POST", http + "/clip?seconds=3"], output: file) }
            let both = try await Self.waitForRunning(http, ["x264enc h264 320x240: recording,clip"])
            let response = try await answer.value
            XCTAssertEqual(both, ["x264enc h264 320x240: recording,clip"], "\(lines.all)")
            XCTAssertEqual(response.status, 200, String(response.text.prefix(300)))
            XCTAssertEqual(response.headers["content-type"], "video/mp4")
            let facts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((response.headers["x-plumb-clip"] ?? "").utf8))
                                      as? [String: Any], "\(response.headers)")
            XCTAssertEqual(facts["encoder"] as? String, "x264enc")
            XCTAssertEqual(facts["frames"] as? Int, 90, "\(facts)")
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(file), 90)
            XCTAssertEqual(try ffprobeFirstFrameIsKey(file), true)
            let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", file, "-f", "null", "-"])
            XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "the clip decodes clean")
            let after = try await Self.waitForRunning(http, [recording])
            XCTAssertEqual(after, [recording], "the clip let go: \(lines.all)")
        }
    }

    /// With nothing else running (no ring, no recording, no preview consumer), a `POST /clip`
    /// starts the main encoding for its time: one encoder feeding "clip".
    func testAClipAloneStartsTheMainEncodingForItsTime() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        try await Self.shuttingDown(daemon) {
            let idle = try await Self.running(http)
            XCTAssertEqual(idle, [], "\(lines.all)")
            let file = dir.appendingPathComponent("answer.mp4").path
            let answer = Task { try await ServiceClient.curl(["-X", "POST", http + "/clip?seconds=2"], output: file) }
            let taken = try await Self.waitForRunning(http, ["x264enc h264 320x240: clip"])
            XCTAssertEqual(taken, ["x264enc h264 320x240: clip"], "\(lines.all)")
            let response = try await answer.value
            XCTAssertEqual(response.status, 200, String(response.text.prefix(300)))
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(file), 60)
            XCTAssertTrue(lines.contains("runs the main encoding for a clip (POST /clip)"), "\(lines.all)")
        }
    }

    /// Runs `body`, then shuts the daemon down, also when it throws.
    static func shuttingDown(_ daemon: ServeDaemon, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
    }

    /// `POST /event?post-seconds=N`: the new clip's file name.
    static func trigger(_ http: String, postSeconds: Int) async throws -> String {
        let answer = try await ServiceClient.curl(["-X", "POST", http + "/event?post-seconds=\(postSeconds)"])
        XCTAssertEqual(answer.status, 200, answer.text)
        let json = try answer.json()
        XCTAssertEqual(json["extended"] as? Bool, false, answer.text)
        return try XCTUnwrap(json["file"] as? String, answer.text)
    }

    /// `post-seconds=4` from the keyframe asked for at the trigger, at the test camera's 30 fps
    /// (120 frames; a busy machine's encoder may drop a few, and nothing earlier is held).
    static let fourSeconds = 90...150

    /// `[events] pre-seconds = 0`: a stop while a clip is written on the main encoding ends
    /// the clip where it stands as a whole file (the main encoding stops before the recorder
    /// finishes: the clip must not wait for frames that no longer come).
    func testWithoutPreRecordAStopFinishesTheClipOnTheMainEncoding() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        let (daemon, addresses) = try await Self.start(preSeconds: 0, folder: dir, lines: lines)
        let http = addresses.http.httpURL
        let path: String
        do {
            let file = try await Self.trigger(http, postSeconds: 60)
            path = dir.appendingPathComponent(file).path
            // A second of it written, then the stop.
            try await eventually("a second of the clip", timeout: .seconds(30)) {
                let status = try await ServiceClient.curl([http + "/status"])
                let current = (try status.json()["events"] as? [String: Any])?["current"] as? [String: Any]
                return (current?["frames"] as? Int ?? 0) >= 30
            }
        } catch {
            await daemon.shutdown()
            throw error
        }
        await daemon.shutdown()
        try await checkClip(path, frames: 30...1800)
        XCTAssertTrue(lines.contains("event clip saved: \(URL(fileURLWithPath: path).lastPathComponent)"), "\(lines.all)")
    }

    /// Waits for the clip's file, then reads it with ffprobe and ffmpeg: its first packet a
    /// keyframe, every frame decoded without a warning, `frames` of them.
    func checkClip(_ path: String, frames expected: ClosedRange<Int>) async throws {
        let file = URL(fileURLWithPath: path).lastPathComponent
        await eventually("the clip \(file)", timeout: .seconds(30)) { FileManager.default.fileExists(atPath: path) }
        let first = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "packet=flags",
            "-of", "csv=p=0", path,
        ])
        XCTAssertEqual(first.stdout.split(separator: "\n").first.map { $0.hasPrefix("K") }, true, "\(file): \(first.stdout)")
        XCTAssertEqual(try ffprobeFirstFrameIsKey(path), true, file)
        let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", path, "-f", "null", "-"])
        XCTAssertEqual(decode.code, 0, decode.stderr)
        XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", file)
        let frames = try IndependentReaders.ffprobeFrameCount(path)
        print("event clip \(file): \(frames) frames")
        XCTAssertTrue(expected.contains(frames), "\(file): \(frames) frames, not \(expected)")
    }

    /// The main encoding alone while idle, feeding the ring. A recording's encoder then runs
    /// the main encoding (issue 26): one encoder, feeding "recording" and "ring", and an RTSP
    /// consumer (rtspsrc) of the upright preview takes it too ("recording,ring,rtsp"). Before
    /// the recording stops, the main branch takes the encoding back ("ring,rtsp"); an event
    /// clip whose pre-record spans both handovers decodes without a warning, and the
    /// recording's file holds every frame the daemon says it wrote.
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
            let recording = "x264enc h264 320x240: recording,ring"
            let recorded = try await Self.waitForRunning(http, [recording])
            XCTAssertEqual(recorded, [recording], "\(lines.all)")
            XCTAssertTrue(lines.contains("encoder: x264enc (h264) of the main encoding stopped: the recording's encoder runs it"),
                          "\(lines.all)")

            consumer = try ServiceClient.Child("/usr/bin/gst-launch-1.0", ["-q", "rtspsrc", "location=\(addresses.rtsp)",
                                                                           "protocols=tcp", "!", "fakesink"])
            let shared = "x264enc h264 320x240: recording,ring,rtsp"
            let watched = try await Self.waitForRunning(http, [shared])
            XCTAssertEqual(watched, [shared], "\(lines.all)")

            let stopped = try await ServiceClient.curl(["-X", "POST", http + "/recording/stop"])
            XCTAssertEqual(stopped.status, 200, stopped.text)
            let back = try await Self.waitForRunning(http, ["x264enc h264 320x240: ring,rtsp"])
            XCTAssertEqual(back, ["x264enc h264 320x240: ring,rtsp"], "\(lines.all)")
            let facts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stopped.text.utf8)) as? [String: Any])
            let file = try XCTUnwrap((facts["facts"] as? [String: Any])?["file"] as? String, stopped.text)
            let frames = try XCTUnwrap((facts["facts"] as? [String: Any])?["frames"] as? Int, stopped.text)
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(file), frames)

            // The ring went on through both handovers: a clip from it plays clean.
            let clip = try await Self.trigger(http, postSeconds: 1)
            try await checkClip(dir.appendingPathComponent(clip).path, frames: 30...150)
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
