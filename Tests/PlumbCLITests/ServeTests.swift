import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` as a user runs it, read by real clients: ffprobe and GStreamer's rtspsrc
/// on the RTSP preview, curl on the control API and its event stream, ffprobe and
/// exiftool on what it writes. One daemon serves many things at once, as in the field.
final class ServeTests: XCTestCase {
    static let token = "serve-test-token-0123456789"

    /// Eight preview consumers for 20 s while the continuous recording runs in 8-second
    /// segments and every endpoint is exercised; then a stop finalizes the recording.
    func testConsumersRecordingAndEveryEndpointAtOnce() throws {
        let serve = try ServeProcess(self, [
            "recording": ["continuous": "true", "segment-seconds": "8"],
            // Scheduled keyframes 60 s apart: only the keyframe made for each PLAY gives a
            // joining consumer a picture within seconds.
            "preview": ["keyframe-seconds": "60"],
            "http": ["token": Self.token],
        ])
        XCTAssertTrue(serve.log.contains("camera: the test pattern ([camera] device = test)"), serve.log)
        XCTAssertTrue(serve.rtsp.hasPrefix("rtsp://127.0.0.1:") && serve.rtsp.hasSuffix("/preview"), serve.rtsp)
        let events = try EventTap(serve, self)

        // The configured caps, read by ffprobe and by rtspsrc + avdec_h264 through a caps filter.
        let (probe, probeErr) = try Probe.live(serve.rtsp)
        XCTAssertEqual(probe?.codec, "h264", probeErr)
        XCTAssertEqual(probe?.width, 320)
        XCTAssertEqual(probe?.height, 240)
        let check = try RTSPClient(serve.rtsp, frames: 10, caps: "video/x-raw,width=320,height=240")
        let checked = check.finish(timeout: 30)
        XCTAssertTrue(RTSPClient.gotEveryFrame(checked), "rtspsrc did not decode 10 frames of 320x240: \(checked.stderr)")

        // CPU of the daemon recording with no consumer, then with eight.
        let quiet = measureCPU(serve, seconds: 3)
        let consumers = try (0..<8).map { _ in try RTSPClient(serve.rtsp, frames: 600) }  // 20 s each
        eventually("the eight consumers did not all connect", timeout: .seconds(30)) { ((try? serve.curl("GET", "/status").json()["rtsp_clients"]) as? Int ?? 0) >= 8 }
        let busy = measureCPU(serve, seconds: 3)
        print("plumb serve CPU: \(percent(quiet)) recording alone, \(percent(busy)) with 8 RTSP consumers: "
              + "\(percent((busy - quiet) / 8)) per extra consumer")

        // While they watch: every endpoint and every error.
        try checkEndpoints(serve)

        // SIGUSR1: a still into the recordings folder.
        kill(serve.pid, SIGUSR1)
        XCTAssertTrue(serve.waitForLog("still saved: "), serve.log)
        let stillPath = try XCTUnwrap(ServeProcess.value(after: "still saved: ", in: serve.log))
        XCTAssertEqual(try exif(URL(fileURLWithPath: stillPath))["FileType"], "JPEG")

        // A consumer joining now gets a picture at once (a keyframe made for its PLAY).
        let joinStart = Date()
        let joiner = try RTSPClient(serve.rtsp, frames: 1)
        let joined = joiner.finish(timeout: 30)
        let joinSeconds = Date().timeIntervalSince(joinStart)
        XCTAssertTrue(RTSPClient.gotEveryFrame(joined), joined.stderr)
        XCTAssertLessThan(joinSeconds, 10, "the joiner waited \(joinSeconds) s for a picture")
        print("time to first decoded frame for a consumer joining mid-recording: "
              + String(format: "%.2f s", joinSeconds) + " (gst-launch start-up included)")

        for (i, consumer) in consumers.enumerated() {
            let r = consumer.finish(timeout: 60)
            XCTAssertTrue(RTSPClient.gotEveryFrame(r), "consumer \(i) did not decode its 600 frames: \(r.stderr)")
        }

        // The continuous recording: every segment finalized, no frame missing in or between them.
        let stopped = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let files = try XCTUnwrap(stopped.json()["files"] as? [String], stopped.text)
        XCTAssertGreaterThanOrEqual(files.count, 4, "30 s in 8 s segments: \(files)")
        eventually(events.raw, timeout: .seconds(20)) { events.named("recording-stopped").count >= files.count }
        try checkSegments(files, events: events, folder: serve.folder)
        let again = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(again.status, 409, again.text)
        XCTAssertTrue(again.error.contains("not recording"), again.error)

        // A recording running at SIGTERM is finalized; the daemon exits 0.
        let start = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(start.status, 200, start.text)
        let last = serve.folder.appendingPathComponent(try XCTUnwrap(start.json()["file"] as? String))
        serve.waitForRecordedFrames(31, in: last.lastPathComponent)
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
        XCTAssertTrue(log.contains("SIGTERM: finalizing every file"), log)
        XCTAssertTrue(try hasMoov(last), "SIGTERM left \(last.lastPathComponent) without its moov")
        let tail = try probeFile(last)
        XCTAssertGreaterThan(tail.frames, 30, "\(tail)")
        XCTAssertEqual(Double(tail.frames), tail.duration * ServeProcess.fps, accuracy: 1.5)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: serve.folder.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no clip or temporary file is left behind")
    }

    /// Every endpoint and error status of the API, on a daemon that is recording.
    private func checkEndpoints(_ serve: ServeProcess) throws {
        // GET /status
        let status = try serve.curl("GET", "/status").json()
        XCTAssertEqual(status["camera"] as? String, "Plumb test pattern")
        XCTAssertEqual(status["state"] as? String, "running")
        XCTAssertTrue((status["caps"] as? String ?? "").contains("width=320,height=240,framerate=30/1"), "\(status)")
        XCTAssertEqual(status["fps"] as? Double ?? 0, ServeProcess.fps, accuracy: 3, "measured fps: \(status)")
        XCTAssertEqual(status["orientation"] as? Int, 0)
        XCTAssertGreaterThanOrEqual(status["rtsp_clients"] as? Int ?? 0, 8)
        XCTAssertGreaterThan(status["disk_free_bytes"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(status["uptime_seconds"] as? Double ?? 0, 0)
        XCTAssertEqual(status["rtsp_url"] as? String, serve.rtsp)
        // Which encoders run and why the better ones do not, as `plumb encoders` chooses.
        let encoders = try XCTUnwrap(status["encoders"] as? [String: [String: Any]], "\(status)")
        let choice = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try PlumbProcess.plumb("encoders", "--json").stdout.utf8))
                                   as? [String: Any])
        let h264 = (choice["codecs"] as? [[String: Any]])?.first?["choice"] as? String
        XCTAssertEqual(encoders["preview"]?["encoder"] as? String, h264)
        XCTAssertEqual(encoders["recording"]?["encoder"] as? String, h264)
        XCTAssertNotNil(encoders["recording"]?["passed_over"] as? [String], "\(encoders)")
        XCTAssertTrue(serve.log.contains("encoder: preview uses \(h264 ?? "?") (h264)"), serve.log)
        let recording = try XCTUnwrap(status["recording"] as? [String: Any], "\(status)")
        XCTAssertEqual(recording["state"] as? String, "recording")
        let current = try XCTUnwrap(recording["file"] as? String)
        XCTAssertTrue(FileManager.default.fileExists(atPath: serve.folder.appendingPathComponent(current).path), current)

        // POST /photo during the recording: a JPEG whose EXIF exiftool reads, facts in a header.
        let photoFile = serve.dir.appendingPathComponent("photo.jpg")
        let photo = try serve.curl("POST", "/photo", output: photoFile)
        XCTAssertEqual(photo.status, 200)
        XCTAssertEqual(photo.headers["content-type"], "image/jpeg")
        let photoFacts = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data((photo.headers["x-plumb-photo"] ?? "").utf8))
                                       as? [String: Any], "\(photo.headers)")
        let tags = try exif(photoFile)
        XCTAssertEqual(tags["Make"], "Plumb")
        XCTAssertEqual(tags["Model"], "Plumb test pattern")
        XCTAssertEqual(tags["Orientation"], "1")
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(photoFacts["width"] as? Int, 320)
        XCTAssertEqual(photoFacts["bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: photoFile.path)[.size] as? Int)

        // POST /clip?seconds=2: an MP4 of 60 frames, its facts in a header; nothing left in the folder.
        let clipFile = serve.dir.appendingPathComponent("clip.mp4")
        let clip = try serve.curl("POST", "/clip?seconds=2", output: clipFile)
        XCTAssertEqual(clip.status, 200)
        XCTAssertEqual(clip.headers["content-type"], "video/mp4")
        let clipFacts = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data((clip.headers["x-plumb-clip"] ?? "").utf8))
                                      as? [String: Any], "\(clip.headers)")
        let clipProbe = try probeFile(clipFile)
        XCTAssertEqual(clipProbe.codec, "h264")
        XCTAssertEqual(clipProbe.frames, clipFacts["frames"] as? Int)
        XCTAssertEqual(Double(clipProbe.frames), 2 * ServeProcess.fps, accuracy: 2)
        XCTAssertTrue(try hasMoov(clipFile))

        // POST /recording/start while the continuous recording runs: 409.
        let twice = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(twice.status, 409, twice.text)
        XCTAssertTrue(twice.error.contains("already recording"), twice.error)

        // GET /recordings and GET /recordings/NAME: a finished segment, byte for byte.
        eventually("two recordings listed", timeout: .seconds(20)) { self.listing(serve).filter { $0.hasSuffix(".mp4") }.count >= 2 }
        let names = listing(serve)
        XCTAssertTrue(names.contains(current), "\(names)")
        let finished = try XCTUnwrap(names.first { $0.hasSuffix(".mp4") })
        let download = serve.dir.appendingPathComponent("download.mp4")
        let got = try serve.curl("GET", "/recordings/\(finished)", output: download)
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["content-type"], "video/mp4")
        XCTAssertEqual(try Data(contentsOf: download), try Data(contentsOf: serve.folder.appendingPathComponent(finished)))

        // 400: bad parameters, names that would leave the folder.
        for query in ["", "?seconds=0", "?seconds=61", "?seconds=abc", "?seconds=2.5"] {
            let bad = try serve.curl("POST", "/clip\(query)")
            XCTAssertEqual(bad.status, 400, "/clip\(query): \(bad.text)")
            XCTAssertTrue(bad.error.contains("1 to 60"), bad.error)
        }
        for name in ["..%2Fplumb.ini", ".hidden.mp4", "notes.txt"] {
            let bad = try serve.curl("GET", "/recordings/\(name)")
            XCTAssertEqual(bad.status, 400, "\(name): \(bad.text)")
        }
        // 404: unknown recording, unknown endpoint.
        let missing = try serve.curl("GET", "/recordings/nothing-here.mp4")
        XCTAssertEqual(missing.status, 404)
        XCTAssertTrue(missing.error.contains("GET /recordings"), missing.error)
        XCTAssertEqual(try serve.curl("GET", "/nowhere").status, 404)
        // 405, with the methods allowed.
        let wrongMethod = try serve.curl("DELETE", "/status")
        XCTAssertEqual(wrongMethod.status, 405)
        XCTAssertEqual(wrongMethod.headers["allow"], "GET, HEAD")
        XCTAssertEqual(try serve.curl("GET", "/photo").status, 405)
        // 401: no token, a wrong token.
        let anonymous = try serve.curl("GET", "/status", authorized: false)
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertNotNil(anonymous.headers["www-authenticate"])
        let wrong = try serve.curl("GET", "/status", authorized: false, extra: ["-H", "Authorization: Bearer wrong-token-wrong-token"])
        XCTAssertEqual(wrong.status, 401)
    }

    private func listing(_ serve: ServeProcess) -> [String] {
        guard let r = try? serve.curl("GET", "/recordings"),
              let list = try? JSONSerialization.jsonObject(with: r.body) as? [[String: Any]] else { return [] }
        return list.compactMap { $0["name"] as? String }
    }

    /// Each file is whole (frames = duration × fps, read by ffprobe), and together they
    /// cover the recording's time with no frame missing where one file hands over to the next.
    private func checkSegments(_ files: [String], events: EventTap, folder: URL) throws {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var facts: [String: [String: Any]] = [:]
        for event in events.named("recording-stopped") {
            if let file = event.data["file"] as? String, let f = event.data["facts"] as? [String: Any] { facts[file] = f }
        }
        var totalFrames = 0
        var first: Date?
        var end: Date?
        for name in files {
            let url = folder.appendingPathComponent(name)
            let probe = try probeFile(url)
            let f = try XCTUnwrap(facts[name], "no recording-stopped event for \(name)")
            XCTAssertTrue(try hasMoov(url), "\(name) is not finalized")
            XCTAssertTrue(try ProbedVideo(url).firstPacketIsKeyframe, "\(name) does not start on a keyframe")
            XCTAssertEqual(probe.frames, f["frames"] as? Int, name)
            XCTAssertEqual(Double(probe.frames), probe.duration * ServeProcess.fps, accuracy: 1.5, "\(name): \(probe)")
            totalFrames += probe.frames
            let started = try XCTUnwrap(iso.date(from: f["started_at"] as? String ?? ""), "\(f)")
            first = first ?? started
            end = started.addingTimeInterval(f["seconds"] as? Double ?? 0)
        }
        let span = try XCTUnwrap(end).timeIntervalSince(try XCTUnwrap(first))
        // Wall-clock stamps jitter by the encoders' latency on a busy machine: a few frames.
        XCTAssertEqual(Double(totalFrames), span * ServeProcess.fps, accuracy: 6,
                       "\(totalFrames) frames in \(files.count) files over \(span) s")
    }

    private func measureCPU(_ serve: ServeProcess, seconds: Double) -> Double {
        let before = serve.cpuSeconds, start = Date()
        Thread.sleep(forTimeInterval: seconds)  // the thing tested: CPU over this time
        return (serve.cpuSeconds - before) / Date().timeIntervalSince(start)
    }

    private func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }
}
