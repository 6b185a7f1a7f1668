import Foundation
import PlumbTestSupport
import XCTest

/// A board without a real-time clock: `plumb serve` under libfaketime (Debian `faketime`),
/// whose wall clock — only it: the monotonic clock stays true — jumps +3 h and then back
/// 1 h mid-recording. Every 3 s segment keeps its length (ffprobe), each jump is logged and
/// counted in `/status`, and the files are named by the wall clock of their start.
///
/// libfaketime 0.9.10 has two quirks this test works around: it calls setenv() in its
/// constructor, which moves `environ` and loses Swift's view of argv in the process it is
/// preloaded into first, so the daemon is exec'd by a shell that loads it before; and with
/// the faked wall clock *behind* the real one its monotonic waits never wake (a plain
/// `Task.sleep` loop hangs), so the -1 h jump is taken from +3 h to +2 h.
///
/// libfaketime fakes only what the daemon reads; the daemon hears of a set of the clock
/// from the kernel (a timerfd, TFD_TIMER_CANCEL_ON_SET), so each jump written to the offset
/// file is followed by a real set of the machine's clock to what it reads (moving it by the
/// microseconds between the read and the set): the kernel's word that comes with a real
/// jump. That needs root, which the tests run as.
///
/// The library is libfaketimeMT, which serialises its time calls: plain libfaketime re-reads
/// the offset file into shared static buffers on every call (FAKETIME_NO_CACHE) from all the
/// daemon's threads at once, and a thread descheduled mid-parse on a loaded machine handed
/// out a wrong time once in a while: CI saw 4 jumps for 2, the extra pair back to the real
/// time and forward again (+7200 s).
final class ServeClockTests: XCTestCase {
    static func libfaketime() throws -> String {
        let lib = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib").lazy
            .map { "/usr/lib/\($0)/faketime/libfaketimeMT.so.1" }
            .first { FileManager.default.fileExists(atPath: $0) }
        return try XCTUnwrap(lib, "no libfaketime: run make deps (Debian package faketime)")
    }

    /// "2026-12-01T23-00-04Z.mp4" -> that time.
    static func nameTime(_ name: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH-mm-ss'Z'"
        return f.date(from: String(name.prefix(20)))
    }

    static func httpDate(_ text: String?) -> Date? {
        guard let text else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: text)
    }

    func testWallClockJumpsChangeNoSegmentsLength() throws {
        let dir = try temporaryDirectory(self)
        let offset = dir.appendingPathComponent("faketime-offset")
        try "+0\n".write(to: offset, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(self, ["recording": ["continuous": "true", "segment-seconds": "3"]], environment: [
            "LD_PRELOAD": try Self.libfaketime(),
            "FAKETIME_TIMESTAMP_FILE": offset.path,
            "FAKETIME_NO_CACHE": "1",  // the file is read on each call: the jump comes when the test writes it
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        ], dir: dir, launcher: ["/bin/sh", "-c", "exec \"$@\"", "sh"])
        let pid = serve.pid
        addTeardownBlock {
            // The shm libfaketime made for the shell (whose pid the daemon kept).
            unlink("/dev/shm/faketime_shm_\(pid)")
            unlink("/dev/shm/sem.faketime_sem_\(pid)")
        }
        func segmentsDone() -> Int { serve.log.components(separatedBy: "plumb serve: recorded ").count - 1 }
        func jump(to text: String, logged: String, expected: TimeInterval) throws {
            let before = segmentsDone()
            try (text + "\n").write(to: offset, atomically: true, encoding: .utf8)
            try WallClockStep.step(by: 0)
            XCTAssertTrue(serve.waitForLog("wall clock jumped \(logged)"), serve.log)
            // The daemon's own wall clock moved: its HTTP Date header says so.
            let date = try XCTUnwrap(Self.httpDate(try serve.curl("GET", "/status").headers["date"]))
            XCTAssertEqual(date.timeIntervalSinceNow, expected, accuracy: 30, "the daemon's wall clock did not jump")
            eventually(serve.log, timeout: .seconds(60)) { segmentsDone() >= before + 2 }
        }
        eventually(serve.log, timeout: .seconds(60)) { segmentsDone() >= 2 }
        try jump(to: "+3h", logged: "+3h0m", expected: 3 * 3600)
        try jump(to: "+2h", logged: "-1h0m", expected: 2 * 3600)

        let status = try serve.curl("GET", "/status").json()
        let clock = try XCTUnwrap(status["clock"] as? [String: Any], "\(status)")
        XCTAssertEqual(clock["jumps"] as? Int, 2, "\(clock)")
        let last = try XCTUnwrap(clock["last_jump"] as? [String: Any], "\(clock)")
        XCTAssertEqual(try XCTUnwrap(last["seconds"] as? Double), -3600, accuracy: 2)
        XCTAssertTrue(clock["synchronized"] is Bool || clock["synchronized"] is NSNull, "\(clock)")
        // Photos carry the kernel's word as /status has it.
        let photo = try serve.curl("POST", "/photo")
        XCTAssertEqual(photo.status, 200, photo.text)
        let facts = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data((photo.headers["x-plumb-photo"] ?? "").utf8)) as? [String: Any])
        if let synced = clock["synchronized"] as? Bool {
            XCTAssertEqual(facts["clock_synchronized"] as? Bool, synced, "\(facts)")
        }

        let realStart = Date()
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        let names = try FileManager.default.contentsOfDirectory(atPath: serve.folder.path)
            .filter { $0.hasSuffix(".mp4") }.sorted { log.range(of: $0)!.lowerBound < log.range(of: $1)!.lowerBound }
        XCTAssertGreaterThanOrEqual(names.count, 7, "\(names)")
        // In the order recorded: every file but the last (cut by the stop) is 3 s long, 90 frames
        // at 30 fps: cut by the frames' own time, however loaded the machine.
        for name in names.dropLast() {
            let probe = try probeFile(serve.folder.appendingPathComponent(name))
            XCTAssertEqual(probe.frames, 90, "\(name): \(probe)\n\(log)")
            XCTAssertEqual(probe.duration, 3.0, accuracy: 0.01, "\(name): \(probe)")
        }
        // Named by the wall clock: real time first, then 3 h ahead, then 2 h ahead.
        let ahead = try names.map { name -> Double in
            let time = try XCTUnwrap(Self.nameTime(name), name)
            return (time.timeIntervalSince(realStart) / 3600).rounded()
        }
        XCTAssertEqual(ahead.first, 0, "\(names)")
        XCTAssertTrue(ahead.contains(3), "\(names)")
        XCTAssertEqual(ahead.last, 2, "\(names)")
        XCTAssertEqual(ahead.filter { $0 != 0 && $0 != 3 && $0 != 2 }, [], "\(names)")
        XCTAssertTrue(log.contains("wall clock jumped +3h0m"), log)
        XCTAssertTrue(log.contains(" mid-recording of "), log)
    }
}
