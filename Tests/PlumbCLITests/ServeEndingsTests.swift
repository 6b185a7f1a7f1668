import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` when something ends before its time, read by independent clients: a stop
/// in the middle of a clip (the client still gets a playable clip, cut short and saying
/// so), and a disk that fills up under a recording (the facts, the event and `/status` say
/// how many frames the file really holds and why it stopped).
final class ServeEndingsTests: XCTestCase {
    /// `POST /clip?seconds=20`, SIGTERM 6 s later: the answer is the clip as far as it got,
    /// a complete MP4 (ffprobe: the frames and the length its facts give, about the time it
    /// ran), with `cut_short` saying why; the daemon exits 0 and leaves nothing behind.
    func testSIGTERMCutsAClipShortAndStillAnswersIt() throws {
        let serve = try ServeProcess(self)
        let clip = serve.dir.appendingPathComponent("clip.mp4")
        let headers = serve.dir.appendingPathComponent("clip.headers")
        let (curl, out, err) = try PlumbProcess.start(PlumbProcess.tool("curl"), [
            "-sS", "--max-time", "90", "-X", "POST", "-o", clip.path, "-D", headers.path, "-w", "%{http_code}",
            serve.http + "/clip?seconds=20",
        ])
        let asked = Date()
        Thread.sleep(forTimeInterval: 6)
        let elapsed = Date().timeIntervalSince(asked)
        let (code, log) = serve.stop(SIGTERM)
        let reply = PlumbProcess.finish(curl, out, err, timeout: 60)

        XCTAssertEqual(code, 0, log)
        XCTAssertEqual(reply.stdout, "200", "the client must get an answer, not an empty reply: \(reply.stderr)")
        XCTAssertTrue(log.contains("plumb serve is stopping (SIGTERM): cutting 1 clip short and answering them"), log)
        let dump = (try? String(contentsOf: headers, encoding: .utf8)) ?? ""
        let line = dump.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("x-plumb-clip:") }
        let header = try XCTUnwrap(line.map { $0.dropFirst("x-plumb-clip:".count).trimmingCharacters(in: .whitespaces) }, dump)
        let facts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(header.utf8)) as? [String: Any], header)
        let why = try XCTUnwrap(facts["cut_short"] as? String, "the facts must say the clip was cut short: \(facts)")
        XCTAssertTrue(why.hasPrefix("plumb serve is stopping (SIGTERM): "), why)
        XCTAssertTrue(why.hasSuffix(" s of the 20 s asked for"), why)

        // A whole MP4 of what was recorded: its index is there and says what the facts say.
        let probe = try probeFile(clip)
        XCTAssertTrue(try hasMoov(clip))
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertEqual(probe.frames, facts["frames"] as? Int)
        XCTAssertEqual(probe.duration, facts["seconds"] as? Double ?? 0, accuracy: 0.1)
        // About the 6 s it ran: less than that (the clip starts at the keyframe after the
        // request), but not much less, and nowhere near 20.
        XCTAssertLessThanOrEqual(probe.duration, elapsed + 0.5)
        XCTAssertGreaterThan(probe.duration, elapsed - 2.5, "\(probe.duration) s of a clip cut after \(elapsed) s")
        print("clip cut by SIGTERM after \(String(format: "%.2f", elapsed)) s: \(probe.frames) frames, "
              + "\(String(format: "%.3f", probe.duration)) s")

        // Delivered: nothing kept, no temporary file left.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: serve.folder.path)) ?? []
        XCTAssertEqual(left, [], "a clip its client got is not kept")
        XCTAssertFalse(log.contains("clip kept"), log)
    }

    /// A recording until the disk is full (a real 320 KiB tmpfs): the file keeps what it holds
    /// and plays; `recording-stopped` carries facts with the frames that are in the file (as
    /// ffprobe counts them) and the cause; the `error` event and `/status`'s `last_error`
    /// (with when) say it too. Retention may delete nothing here, so the file stays to be read
    /// (ServeRetentionTests has the rest: resuming, 507, retention on a full disk).
    func testAFullDiskIsReportedWithTheFramesTheFileHoldsAndWhy() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let started = Date()
        let serve = try ServeProcess(self, ["recording": ["folder": disk.path, "continuous": "true",
                                                          "segment-seconds": "0", "retention-kinds": "none"]])
        let events = try EventTap(serve, self)
        // The test pattern at 320x240 is about 35 KB/s: full in about 10 s.
        XCTAssertTrue(waitUntil(90) { !events.named("recording-stopped").isEmpty }, serve.log)
        let stopped = try XCTUnwrap(events.named("recording-stopped").first, serve.log)
        let name = try XCTUnwrap(stopped.data["file"] as? String, "\(stopped.data)")
        let facts = try XCTUnwrap(stopped.data["facts"] as? [String: Any], "the event must carry facts: \(stopped.data)")
        let frames = try XCTUnwrap(facts["frames"] as? Int, "\(facts)")
        let cause = try XCTUnwrap(facts["error"] as? String, "the facts must say why: \(facts)")
        XCTAssertTrue(cause.contains("No space left on device"), cause)
        XCTAssertTrue(cause.contains(name), cause)

        // The file plays, and holds exactly the frames the facts give.
        let file = disk.appendingPathComponent(name)
        let probe = try probeFile(file)
        XCTAssertGreaterThan(frames, 30, "a few fragments were written before the disk filled up")
        XCTAssertEqual(probe.frames, frames, "the facts must count the frames in the file")
        XCTAssertEqual(probe.duration, facts["seconds"] as? Double ?? 0, accuracy: 0.1)
        print("disk full after \(frames) frames (\(probe.duration) s, \(facts["bytes"] ?? "?") bytes)")

        // The error event and the status say so, with the same count.
        XCTAssertTrue(waitUntil(10) { !events.named("error").isEmpty }, events.raw)
        let message = events.named("error").first?.data["message"] as? String ?? ""
        XCTAssertTrue(message.contains("No space left on device"), message)
        XCTAssertTrue(message.contains("the file holds \(frames) frames"), message)
        XCTAssertFalse(message.contains("after 0 frames"), message)
        let status = try serve.curl("GET", "/status").json()
        let last = try XCTUnwrap(status["last_error"] as? [String: Any], "\(status)")
        XCTAssertEqual(last["message"] as? String, message)
        let at = try XCTUnwrap(ISO8601DateFormatter.withMilliseconds.date(from: last["at"] as? String ?? ""), "\(last)")
        XCTAssertTrue(at >= started.addingTimeInterval(-1) && at <= Date().addingTimeInterval(1), "\(at)")
        XCTAssertEqual((status["recording"] as? [String: Any])?["state"] as? String, "waiting-for-room", "\(status)")

        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
        XCTAssertTrue(log.contains("error: the recording \(name) stopped by itself: No space left on device"), log)
    }
}

extension ISO8601DateFormatter {
    /// "2026-11-02T22:55:01.123Z".
    static var withMilliseconds: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
