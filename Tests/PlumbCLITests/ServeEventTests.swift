import Foundation
import PlumbTestSupport
import XCTest

/// Event clips with pre-record in a real `plumb serve` (`POST /event`, SIGUSR2): each clip
/// is checked with ffprobe and ffmpeg, not with Plumb's own facts alone.
final class ServeEventTests: XCTestCase {
    static let frame = 1 / ServeProcess.fps

    /// A clip starts at the keyframe at or before (trigger − pre-seconds): its first frame is
    /// at least pre-seconds before the trigger by the clip's own timestamps. The proof that
    /// does not trust Plumb's times: the clip's frames end before (last trigger + post), so a
    /// duration of at least pre + (the triggers' spacing) + post means the first frame is
    /// at least pre-seconds before the first trigger. A second trigger during the clip makes
    /// the same file longer; a bad post-seconds is a 400.
    func testAClipStartsPreSecondsBeforeItsTriggerAndASecondTriggerExtendsIt() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "2", "post-seconds": "2"],
                                            "rotation": ["accelerometer": "fixed:90"]])
        let tap = try EventTap(serve, self)
        try waitForRing(serve, seconds: 2)

        let bad = try serve.curl("POST", "/event?post-seconds=-1")
        XCTAssertEqual(bad.status, 400, bad.text)
        XCTAssertTrue(bad.error.contains("post-seconds=-1"), bad.text)
        XCTAssertEqual(try serve.curl("POST", "/event?post-seconds=301").status, 400, "over [events] max-seconds")

        let before = Date()
        let first = try serve.curl("POST", "/event")
        XCTAssertEqual(first.status, 200, first.text)
        let facts = try first.json()
        let name = try XCTUnwrap(facts["file"] as? String)
        XCTAssertTrue(name.hasPrefix("event-") && name.hasSuffix(".mp4"), name)
        XCTAssertEqual(facts["extended"] as? Bool, false)
        XCTAssertEqual(facts["state"] as? String, "recording")
        XCTAssertEqual(facts["pre_seconds"] as? Double, 2)
        XCTAssertEqual(facts["post_seconds"] as? Double, 2)
        let trigger1 = try date(facts["trigger"])
        let firstFrame = try date(facts["first_frame_at"])
        XCTAssertGreaterThanOrEqual(trigger1.timeIntervalSince(before), -0.05, "the trigger is when it was asked")
        XCTAssertGreaterThanOrEqual(trigger1.timeIntervalSince(firstFrame), 2 - Self.frame, "\(facts)")
        XCTAssertLessThan(trigger1.timeIntervalSince(firstFrame), 3 + 0.2, "at most one GOP (1 s) more than asked: \(facts)")

        // The second trigger comes once the clip holds a second past the first.
        try waitForClip(serve, seconds: trigger1.timeIntervalSince(firstFrame) + 1)
        let second = try serve.curl("POST", "/event?post-seconds=3")
        XCTAssertEqual(second.status, 200, second.text)
        let extended = try second.json()
        XCTAssertEqual(extended["file"] as? String, name, "the same clip")
        XCTAssertEqual(extended["extended"] as? Bool, true)
        XCTAssertEqual((extended["triggers"] as? [String])?.count, 2)
        let trigger2 = try date(extended["trigger"])

        // Done: the event SSE with the same facts, and the file under its real name.
        eventually(tap.raw, timeout: .seconds(30)) { !tap.named("event").isEmpty }
        let done = try XCTUnwrap(tap.named("event").first)
        XCTAssertEqual(done.data["file"] as? String, name)
        let doneFacts = try XCTUnwrap(done.data["facts"] as? [String: Any])
        XCTAssertEqual(doneFacts["state"] as? String, "finished", "\(doneFacts)")
        XCTAssertEqual((doneFacts["triggers"] as? [String])?.count, 2)
        XCTAssertEqual(doneFacts["first_frame_at"] as? String, facts["first_frame_at"] as? String)
        let path = serve.folder.appendingPathComponent(name).path

        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: serve.curl("GET", "/recordings").body) as? [[String: Any]])
        XCTAssertEqual(listed.filter { $0["kind"] as? String == "event" }.compactMap { $0["name"] as? String }, [name],
                       "one clip for both triggers")
        XCTAssertEqual(try hiddenFiles(serve.folder), [], "no temporary file left")

        // By independent readers.
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(path))
        let spacing = trigger2.timeIntervalSince(trigger1)
        XCTAssertGreaterThanOrEqual(duration, 2 + spacing + 3 - Self.frame - 0.05,
                                    "first frame ≥ 2 s before the first trigger, last ≥ 3 s after the second")
        XCTAssertLessThanOrEqual(duration, 3 + spacing + 3 + 0.3, "at most one GOP more before, nothing past the end")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(path), doneFacts["frames"] as? Int)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), .degrees90, "the recordings' orientation matrix")
        XCTAssertTrue(try IndependentReaders.isNormalMP4(path), "finalized: one moov, no fragments")
        try assertDecodesCleanly(path)
        let status = try serve.curl("GET", "/status").json()
        let events = try XCTUnwrap(status["events"] as? [String: Any], "\(status)")
        XCTAssertEqual(events["clips_written"] as? Int, 1)
        XCTAssertTrue(events["current"] is NSNull)
        XCTAssertEqual((events["last"] as? [String: Any])?["file"] as? String, name)

        // Repeatable: another trigger after the clip is another clip.
        let third = try serve.curl("POST", "/event?post-seconds=0")
        XCTAssertEqual(third.status, 200, third.text)
        XCTAssertNotEqual(try third.json()["file"] as? String, name)
        eventually(tap.raw, timeout: .seconds(30)) { tap.named("event").count == 2 }
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// SIGUSR2 is a trigger with the configured seconds.
    func testSIGUSR2SavesAnEventClip() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "1", "post-seconds": "1"]])
        let tap = try EventTap(serve, self)
        try waitForRing(serve, seconds: 1)
        kill(serve.pid, SIGUSR2)
        eventually(tap.raw + serve.log, timeout: .seconds(30)) { !tap.named("event").isEmpty }
        let event = try XCTUnwrap(tap.named("event").first)
        let name = try XCTUnwrap(event.data["file"] as? String)
        let path = serve.folder.appendingPathComponent(name).path
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try IndependentReaders.ffprobeDuration(path)), 2 - Self.frame - 0.05)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), .degrees0)
        try assertDecodesCleanly(path)
        XCTAssertTrue(serve.log.contains("event clip saved: \(name)"), serve.log)
        XCTAssertTrue(serve.process.isRunning, "SIGUSR2 does not stop the daemon")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// Many triggers in a row: the ring never holds more than max-buffer-bytes (the smallest
    /// allowed, so the bytes bound the ring, not the seconds), each clip is capped at
    /// max-seconds, and the daemon's memory does not grow with the triggers.
    func testRapidTriggersKeepMemoryBounded() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "5", "post-seconds": "1", "max-seconds": "3",
                                                       "max-buffer-bytes": "64K"]])
        let tap = try EventTap(serve, self)
        try waitForRing(serve, seconds: 1)
        // Warm up: one clip written, so the first clip's allocations are in the baseline.
        XCTAssertEqual(try serve.curl("POST", "/event").status, 200)
        eventually(tap.raw, timeout: .seconds(30)) { tap.named("event").count == 1 }
        let baseline = rss(serve.pid)
        var ringBytes: [Int] = []
        var ringSeconds: [Double] = []
        for i in 0..<120 {
            let reply = try serve.curl("POST", "/event")
            XCTAssertEqual(reply.status, 200, reply.text)
            if i % 10 == 0 {
                let events = try XCTUnwrap(try serve.curl("GET", "/status").json()["events"] as? [String: Any])
                ringBytes.append(try XCTUnwrap(events["ring_bytes"] as? Int))
                ringSeconds.append(try XCTUnwrap(events["ring_seconds"] as? Double))
            }
        }
        eventually("no current event in /status", timeout: .seconds(30)) {
            ((try? serve.curl("GET", "/status").json()["events"] as? [String: Any])??["current"]) is NSNull
        }
        let after = rss(serve.pid)
        print("rapid triggers: RSS \(baseline / 1024) MiB before, \(after / 1024) MiB after 120 triggers; "
              + "ring bytes \(ringBytes), seconds \(ringSeconds)")
        XCTAssertTrue(ringBytes.allSatisfy { $0 <= 64 << 10 }, "\(ringBytes)")
        XCTAssertTrue(ringSeconds.allSatisfy { $0 < 5 }, "64K holds less than 5 s of this video: \(ringSeconds)")
        XCTAssertLessThan(after - baseline, 40 * 1024, "RSS grew from \(baseline) KiB to \(after) KiB")
        // Every clip is whole, and none longer than max-seconds.
        for event in tap.named("event") {
            let name = try XCTUnwrap(event.data["file"] as? String)
            let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(serve.folder.appendingPathComponent(name).path))
            XCTAssertLessThanOrEqual(duration, 3 + Self.frame / 2, name)
            XCTAssertEqual((event.data["facts"] as? [String: Any])?["state"] as? String, "finished")
        }
        XCTAssertGreaterThan(tap.named("event").count, 1, "triggers past max-seconds start new clips")
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// A crash while a clip is written leaves a hidden temporary file that nothing lists;
    /// the next start gives it its real name and the repair makes it a normal MP4.
    func testAClipCutByACrashIsRepairedAtTheNextStart() throws {
        var serve = try ServeProcess(self, ["events": ["pre-seconds": "1"]])
        try waitForRing(serve, seconds: 1)
        let reply = try serve.curl("POST", "/event?post-seconds=60")
        let name = try XCTUnwrap(try reply.json()["file"] as? String)
        // Fragments of 1 s: wait until some are on disk.
        eventually("\((try? hiddenFiles(serve.folder)) ?? [])", timeout: .seconds(30)) {
            (try? hiddenFiles(serve.folder).first.map { fileSize(serve.folder.appendingPathComponent($0)) > 50_000 }) == true
        }
        let listed = try serve.curl("GET", "/recordings").text
        XCTAssertFalse(listed.contains("event-"), "a clip being written is not listed: \(listed)")
        _ = serve.stop(SIGKILL)
        XCTAssertEqual(try hiddenFiles(serve.folder).count, 1)

        serve = try ServeProcess(self, ["events": ["pre-seconds": "1"]], dir: serve.dir)
        XCTAssertEqual(try hiddenFiles(serve.folder), [], "the temporary file got its real name")
        let path = serve.folder.appendingPathComponent(name).path
        XCTAssertTrue(try IndependentReaders.isNormalMP4(path), "repaired: \(serve.log)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try IndependentReaders.ffprobeDuration(path)), 1)
        try assertDecodesCleanly(path)
        XCTAssertTrue(try serve.curl("GET", "/recordings").text.contains(name))
        XCTAssertTrue(serve.log.contains("event clip \(name) was cut by a crash"), serve.log)
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// Clips one right after the other are files of their own, each whole (that a clip still
    /// under its temporary name keeps its name is shown by `EventClipsTests`).
    func testClipsOfTheSameSecondGetTheirOwnNames() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "1"]])
        let tap = try EventTap(serve, self)
        try waitForRing(serve, seconds: 1)
        var names: [String] = []
        for _ in 0..<3 {
            // post-seconds=0: the clip ends at the next frame; the next trigger is a new clip.
            let reply = try serve.curl("POST", "/event?post-seconds=0")
            names.append(try XCTUnwrap(try reply.json()["file"] as? String, reply.text))
            eventually("no current event in /status", timeout: .seconds(10)) {
                ((try? serve.curl("GET", "/status").json()["events"] as? [String: Any])??["current"]) is NSNull
            }
        }
        XCTAssertEqual(Set(names).count, 3, "\(names)")
        eventually(tap.raw, timeout: .seconds(30)) { tap.named("event").count == 3 }
        for name in names {
            let path = serve.folder.appendingPathComponent(name).path
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(try IndependentReaders.ffprobeDuration(path), name), 1 - Self.frame)
            try assertDecodesCleanly(path)
        }
        XCTAssertEqual(serve.stop().code, 0)
    }

    /// SIGTERM while a clip is written ends the clip where it stands, as a normal MP4 under
    /// its real name.
    func testAStopFinishesTheClipBeingWritten() throws {
        let serve = try ServeProcess(self, ["events": ["pre-seconds": "1"]])
        try waitForRing(serve, seconds: 1)
        let started = try serve.curl("POST", "/event?post-seconds=60").json()
        let name = try XCTUnwrap(started["file"] as? String)
        // The stop comes once the clip holds a second past its trigger.
        try waitForClip(serve, seconds: try date(started["trigger"]).timeIntervalSince(try date(started["first_frame_at"])) + 1)
        let (code, log) = serve.stop()
        XCTAssertEqual(code, 0, log)
        XCTAssertEqual(try hiddenFiles(serve.folder), [])
        let path = serve.folder.appendingPathComponent(name).path
        XCTAssertTrue(try IndependentReaders.isNormalMP4(path), log)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try IndependentReaders.ffprobeDuration(path)), 1.5, "pre + what followed")
        try assertDecodesCleanly(path)
        XCTAssertTrue(log.contains("event clip saved: \(name)"), log)
    }

    // MARK: Helpers

    /// Waits until the clip being written holds `seconds` of frames (`GET /status`).
    private func waitForClip(_ serve: ServeProcess, seconds: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let held = eventually("the clip to hold \(seconds) s: \(serve.log)", timeout: .seconds(60), file: file, line: line) {
            let events = (try? serve.curl("GET", "/status").json())?["events"] as? [String: Any]
            return ((events?["current"] as? [String: Any])?["seconds"] as? Double ?? 0) >= seconds
        }
        if !held { throw ServeTestError(description: "the clip did not grow") }
    }

    private func waitForRing(_ serve: ServeProcess, seconds: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let full = eventually("the ring to hold \(seconds) s: \(serve.log)", timeout: .seconds(60), file: file, line: line) {
            let events = (try? serve.curl("GET", "/status").json())?["events"] as? [String: Any]
            return (events?["ring_seconds"] as? Double ?? 0) >= seconds
        }
        if !full { throw ServeTestError(description: "no pre-record") }
    }

    private func date(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        let text = try XCTUnwrap(value as? String, file: file, line: line)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try XCTUnwrap(parser.date(from: text), text, file: file, line: line)
    }

    private func assertDecodesCleanly(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", path, "-f", "null", "-"])
        XCTAssertEqual(r.code, 0, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "ffmpeg warned", file: file, line: line)
    }

    private func hiddenFiles(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }.sorted()
    }

    private func fileSize(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    /// VmRSS in KiB.
    private func rss(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
