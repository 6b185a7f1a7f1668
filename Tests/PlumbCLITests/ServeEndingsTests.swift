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
        Thread.sleep(forTimeInterval: 6)  // the clip runs this long before the stop cuts it (checked against its file)
        let elapsed = Date().timeIntervalSince(asked)
        let (code, log) = serve.stop(SIGTERM)
        // The clip cannot run past the daemon's exit (a loaded machine handles the signal late).
        let exited = Date().timeIntervalSince(asked)
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
        XCTAssertLessThanOrEqual(probe.duration, exited + 0.5, "\(probe.duration) s of a clip whose daemon exited after \(exited) s")
        XCTAssertGreaterThan(probe.duration, elapsed - 2.5, "\(probe.duration) s of a clip cut after \(elapsed) s")
        print("clip cut by SIGTERM after \(String(format: "%.2f", elapsed)) s: \(probe.frames) frames, "
              + "\(String(format: "%.3f", probe.duration)) s")

        // Delivered: nothing kept, no temporary file left.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: serve.folder.path)) ?? []
        XCTAssertEqual(left, [], "a clip its client got is not kept")
        XCTAssertFalse(log.contains("clip kept"), log)
    }

    /// A clip whose client does not read it, then SIGTERM and a second SIGTERM while the stop
    /// waits for that client: the daemon aborts (130) and leaves the hidden `.clip-UUID.mp4`.
    /// The next start keeps it as a visible `clip-DATE.mp4` that ffprobe plays, says so in the
    /// log and names it in `/status`'s `repairs` — it is never deleted.
    func testAClipCutByASecondSignalIsKeptUnderAVisibleNameAtTheNextStart() throws {
        // Scrolling bars at 640x480: a clip grows by about 250 KB/s.
        let settings = ["camera": ["device": "test:smpte", "size": "640x480"]]
        let serve = try ServeProcess(self, settings)
        let port = try XCTUnwrap(URL(string: serve.http)?.port)
        // Asks for the clip, then reads nothing (a small receive buffer: the answer stalls).
        let client = try NonReadingClient(port: port, request: "POST /clip?seconds=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                          + "Content-Length: 0\r\n\r\n")
        defer { client.close() }
        func hidden() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: serve.folder.path)) ?? [])
                .filter { $0.hasPrefix(".clip-") && $0.hasSuffix(".mp4") }
        }
        // More clip than the socket buffers take: the server's send buffer grows to about
        // 3 MB on loopback even for a client that reads nothing.
        let started = Date()
        eventually("no clip is being recorded: \(hidden()) \(serve.log)", timeout: .seconds(120)) {
            hidden().contains { (try? FileManager.default.attributesOfItem(atPath: serve.folder.path + "/" + $0)[.size]
                                 as? Int) ?? 0 > 4_000_000 }
        }
        print("4 MB of clip after \(Date().timeIntervalSince(started)) s")
        kill(serve.pid, SIGTERM)
        XCTAssertTrue(serve.waitForLog("cutting 1 clip short"), serve.log)
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 130, log)
        let left = hidden()
        XCTAssertEqual(left.count, 1, "the abort leaves the hidden clip: \(left)\n\(log)")
        let leftover = try XCTUnwrap(left.first)

        let again = try ServeProcess(self, settings, dir: serve.dir)
        XCTAssertEqual(hidden(), [], "the hidden clip is given a visible name")
        let names = try FileManager.default.contentsOfDirectory(atPath: again.folder.path)
        let kept = try XCTUnwrap(names.first { $0.hasPrefix("clip-") && $0.hasSuffix(".mp4") }, "\(names)\n\(again.log)")
        let probe = try probeFile(again.folder.appendingPathComponent(kept))
        XCTAssertGreaterThan(probe.frames, 30, "\(probe)")
        XCTAssertTrue(again.log.contains("clip kept: \(again.folder.path)/\(kept): \(leftover) was a clip"), again.log)
        XCTAssertTrue(again.log.contains("repair: \(kept): "), again.log)
        let repairs = try XCTUnwrap(try again.curl("GET", "/status").json()["repairs"] as? [[String: Any]])
        let report = try XCTUnwrap(repairs.first { $0["file"] as? String == kept }, "\(repairs)")
        XCTAssertEqual(report["frames"] as? Int, probe.frames, "\(report)")
        XCTAssertTrue((report["detail"] as? String ?? "").contains("a clip plumb serve ended before its client had it"), "\(report)")
        print(again.log.split(separator: "\n").filter { $0.contains("clip kept") || $0.contains("repair:") }.joined(separator: "\n"))
        XCTAssertEqual(again.stop().code, 0)
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
        eventually(serve.log, timeout: .seconds(120)) { !events.named("recording-stopped").isEmpty }
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
        eventually(events.raw, timeout: .seconds(10)) { !events.named("error").isEmpty }
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

/// A raw HTTP client that sends one request and never reads the answer.
private final class NonReadingClient {
    private var fd: Int32

    init(port: Int, request: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size = Int32(4096)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let bytes = Array(request.utf8)
        guard connected == 0, send(fd, bytes, bytes.count, 0) == bytes.count else {
            let error = errno
            close()
            throw ServeTestError(description: "cannot send the request to 127.0.0.1:\(port): errno \(error)")
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}
