import Foundation
import PlumbTestSupport
import XCTest

/// Retention and full disks in a real `plumb serve` on a real small file system (a tmpfs the
/// test mounts): the oldest recordings go first, never the file being written, only the
/// kinds allowed, nothing outside the folder; a full disk ends the file playable, keeps
/// the preview and the API running, refuses new recordings (507) and resumes recording in a
/// new file once the test frees space.
final class ServeRetentionTests: XCTestCase {
    /// A small real MP4 (ffmpeg's own test pattern) with its modification time set to `mtime`.
    private func seedRecording(_ url: URL, mtime: Date) throws {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), [
            "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1", "-c:v", "mpeg4", "-y", url.path,
        ])
        XCTAssertEqual(r.code, 0, r.stderr)
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: url.path)
    }

    private func seedFile(_ url: URL, bytes: Int, mtime: Date) throws {
        try Data(repeating: 0x5A, count: bytes).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: url.path)
    }

    /// Fills `disk` up to its last block (writes until ENOSPC) with a file that is not a recording.
    private func fill(_ disk: URL) throws -> URL {
        let filler = disk.appendingPathComponent("filler.bin")
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
        XCTAssertEqual(errno, ENOSPC)
        close(fd)
        return filler
    }

    private func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    private func mp4s(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".mp4") }.sorted()
    }

    private func retention(_ serve: ServeProcess) throws -> [String: Any] {
        let status = try serve.curl("GET", "/status").json()
        return try XCTUnwrap(status["retention"] as? [String: Any], "\(status)")
    }

    /// A quota the recording reaches: the oldest complete recordings are deleted first (by
    /// modification time, not by name), never the one being written, only of the allowed
    /// kinds; each deletion is logged, sent as `deleted` and counted in /status; files
    /// outside the folder, in `damaged/`, hidden ones and symlinks are left alone.
    func testAQuotaDeletesTheOldestCompleteRecordingsFirstAndNeverTheOneBeingWritten() throws {
        let disk = try mountSmallDisk(self, size: "8m")
        let outside = try temporaryDirectory(self).appendingPathComponent("outside.mp4")
        let long = Date(timeIntervalSince1970: 1_600_000_000)  // 2020
        // Named after a clock far ahead, written long ago: the oldest by time.
        let misnamed = disk.appendingPathComponent("2099-01-01T00-00-00Z.mp4")
        try seedRecording(misnamed, mtime: long)
        let still = disk.appendingPathComponent("2020-01-01T00-00-00Z.jpg")
        try seedFile(still, bytes: 20_000, mtime: long - 3600)
        try FileManager.default.createDirectory(at: disk.appendingPathComponent("damaged"), withIntermediateDirectories: true)
        let damaged = disk.appendingPathComponent("damaged/2019-01-01T00-00-00Z.mp4")
        try seedRecording(damaged, mtime: long - 7200)
        let hidden = disk.appendingPathComponent(".2019-01-01T00-00-00Z.mp4.tmp")
        try seedFile(hidden, bytes: 1000, mtime: long - 7200)
        try seedRecording(outside, mtime: long - 7200)
        let link = disk.appendingPathComponent("2019-06-01T00-00-00Z.mp4")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

        let serve = try ServeProcess(self, ["recording": [
            "folder": disk.path, "continuous": "true", "segment-seconds": "2",
            "max-bytes": "300K", "min-free-bytes": "0", "retention-kinds": "segment,clip",
        ]])
        let events = try EventTap(serve, self)
        // About 70 KB a segment: 300 KB is reached after four or five.
        eventually(serve.log, timeout: .seconds(120)) { events.named("deleted").count >= 4 }

        let all = events.events
        let deleted = all.filter { $0.name == "deleted" }
        let names = deleted.compactMap { $0.data["file"] as? String }
        XCTAssertEqual(names.first, misnamed.lastPathComponent, "the oldest by modification time goes first: \(names)")
        for event in deleted {
            XCTAssertEqual(event.data["reason"] as? String, "max-bytes", "\(event.data)")
            XCTAssertGreaterThan(event.data["bytes"] as? Int ?? 0, 1000, "\(event.data)")
        }
        // Then the segments, in the order they were recorded, each only after it was finished
        // (by the log, which has every file from the first: the events start when the test subscribes).
        let log = serve.log
        let recorded = log.components(separatedBy: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "recording to \(disk.path)/") else { return nil }
            return line[r.upperBound...].prefix { !$0.isWhitespace }.description
        }
        let segments = Array(names.dropFirst())
        XCTAssertEqual(segments, Array(recorded.prefix(segments.count)), "oldest first: \(segments) of \(recorded)")
        for name in segments {
            let finished = log.range(of: "recorded \(name):")
            let gone = log.range(of: "retention: deleted \(name) (")
            XCTAssertNotNil(finished, "\(name) was deleted before it was finished: \(log)")
            XCTAssertNotNil(gone, log)
            if let finished, let gone { XCTAssertLessThan(finished.lowerBound, gone.lowerBound, "\(name): \(log)") }
        }
        // Left alone: the still (not an allowed kind), damaged/, hidden files, the symlink and its target.
        for kept in [still, damaged, hidden, link, outside] {
            XCTAssertTrue(exists(kept), "\(kept.path) must be kept")
        }
        for name in names { XCTAssertFalse(exists(disk.appendingPathComponent(name)), name) }

        // /status counts them (the recording goes on deleting: compare at a quiet moment).
        eventually("\((try? retention(serve)) ?? [:]) vs \(events.named("deleted").count) deleted events", timeout: .seconds(30)) {
            let r = try? retention(serve)
            return r?["deleted"] as? Int == events.named("deleted").count
        }
        let r = try retention(serve)
        XCTAssertEqual(r["max_bytes"] as? Int, 300 * 1024)
        XCTAssertEqual(r["kinds"] as? [String], ["segment", "clip"])
        XCTAssertGreaterThan(r["deleted_bytes"] as? Int ?? 0, 4 * 1000)
        XCTAssertNotNil((r["last"] as? [String: Any])?["file"] as? String, "\(r)")

        // The folder stays near its quota: at most the quota and the file being written.
        let sizes = ((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? []).compactMap { name -> Int? in
            var info = stat()
            guard lstat(disk.path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Int(info.st_size)
        }
        XCTAssertLessThanOrEqual(sizes.reduce(0, +), 300 * 1024 + 200 * 1024, "\(sizes)")

        let (code, finalLog) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, finalLog)
        XCTAssertTrue(finalLog.contains("retention: deleted \(misnamed.lastPathComponent) ("), finalLog)
        XCTAssertTrue(finalLog.contains("the folder is over max-bytes 300K"), finalLog)
        // Every recording left plays (the last one may hold only the frames before the stop).
        for name in mp4s(disk) where name != link.lastPathComponent {
            XCTAssertGreaterThan(try probeFile(disk.appendingPathComponent(name)).duration, 0, name)
        }
        print("deleted \(names.count) files under a 300K quota: \(names)")
    }

    /// A quota smaller than one file: every pass wants everything gone, yet the file being
    /// written is never touched — each file is deleted only after it was finished, and the
    /// current one is there and grows.
    func testAQuotaSmallerThanTheFileBeingWrittenNeverDeletesIt() throws {
        let disk = try mountSmallDisk(self, size: "4m")
        let serve = try ServeProcess(self, ["recording": [
            "folder": disk.path, "continuous": "true", "segment-seconds": "3", "max-bytes": "10K", "min-free-bytes": "0",
        ]])
        eventually(serve.log, timeout: .seconds(60)) { serve.log.components(separatedBy: "retention: deleted ").count > 3 }
        let status = try serve.curl("GET", "/status").json()
        let current = try XCTUnwrap((status["recording"] as? [String: Any])?["file"] as? String, "\(status)")
        let file = disk.appendingPathComponent(current)
        XCTAssertTrue(exists(file), "the file being written is kept")
        var info = stat()
        XCTAssertEqual(lstat(file.path, &info), 0)
        let first = info.st_size
        eventually("it is still written", timeout: .seconds(10)) { lstat(file.path, &info) == 0 && info.st_size > first }
        let log = serve.log
        for line in log.components(separatedBy: "\n") {
            guard let r = line.range(of: "retention: deleted ") else { continue }
            let name = line[r.upperBound...].prefix { $0 != " " }.description
            XCTAssertNotEqual(name, current)
            let finished = log.range(of: "recorded \(name):"), gone = log.range(of: "retention: deleted \(name) (")
            XCTAssertNotNil(finished, "\(name) was deleted unfinished: \(log)")
            if let finished, let gone { XCTAssertLessThan(finished.lowerBound, gone.lowerBound, "\(name): \(log)") }
        }
        let (code, final) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, final)
    }

    /// `max-age`: at start-up and then every few seconds, what was last written longer ago
    /// goes (of the allowed kinds), and nothing younger.
    func testMaxAgeDeletesOldRecordingsOfTheAllowedKinds() throws {
        let disk = try mountSmallDisk(self, size: "4m")
        let threeDaysAgo = Date().addingTimeInterval(-3 * 86_400)
        let old = disk.appendingPathComponent("2026-01-01T00-00-00Z.mp4")
        try seedRecording(old, mtime: threeDaysAgo)
        let young = disk.appendingPathComponent("2026-01-02T00-00-00Z.mp4")
        try seedRecording(young, mtime: Date().addingTimeInterval(-3600))
        let oldStill = disk.appendingPathComponent("2026-01-01T00-00-00Z.jpg")
        try seedFile(oldStill, bytes: 5000, mtime: threeDaysAgo)

        let serve = try ServeProcess(self, ["recording": [
            "folder": disk.path, "max-age": "1d", "retention-kinds": "segment", "min-free-bytes": "0",
        ]])
        XCTAssertTrue(serve.waitForLog("retention: deleted \(old.lastPathComponent)"), serve.log)
        XCTAssertTrue(serve.log.contains("older than max-age 1d; pass on start-up"), serve.log)
        XCTAssertFalse(exists(old))
        XCTAssertTrue(exists(young), "younger than max-age")
        XCTAssertTrue(exists(oldStill), "stills are not in retention-kinds")
        let events = try EventTap(serve, self)

        // A recording that ages past max-age while serving goes with the next pass.
        let later = disk.appendingPathComponent("2026-01-03T00-00-00Z.mp4")
        try seedRecording(later, mtime: threeDaysAgo)
        eventually(serve.log, timeout: .seconds(30)) { !events.named("deleted").isEmpty }
        let event = try XCTUnwrap(events.named("deleted").first)
        XCTAssertEqual(event.data["file"] as? String, later.lastPathComponent)
        XCTAssertEqual(event.data["reason"] as? String, "max-age")
        XCTAssertFalse(exists(later))
        let r = try retention(serve)
        XCTAssertEqual(r["deleted"] as? Int, 2, "\(r)")
        XCTAssertEqual(r["max_age_seconds"] as? Int, 86_400, "\(r)")
        XCTAssertEqual((r["last"] as? [String: Any])?["reason"] as? String, "max-age", "\(r)")
        XCTAssertTrue(exists(young))
        XCTAssertTrue(exists(oldStill))
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
    }

    /// The disk fills up mid-recording with an RTSP consumer attached: the file ends
    /// playable, the consumer keeps getting frames and a new one can join, stills to memory
    /// work, /status and /events say why, retention runs, a start is refused (507) without a
    /// file, and recording resumes in a new file once the test frees space.
    func testADiskFullMidRecordingKeepsThePreviewAndResumesWhenSpaceIsFreed() throws {
        let disk = try mountSmallDisk(self, size: "640k")
        // Not a recording: retention never deletes it; the test does, to free space.
        let filler = disk.appendingPathComponent("filler.bin")
        try seedFile(filler, bytes: 200_000, mtime: Date())
        // A still retention may delete (segments may not, so the cut file stays to be probed).
        let still = disk.appendingPathComponent("2020-01-01T00-00-00Z.jpg")
        try seedFile(still, bytes: 40_000, mtime: Date(timeIntervalSince1970: 1_600_000_000))

        let serve = try ServeProcess(self, ["recording": [
            "folder": disk.path, "continuous": "true", "segment-seconds": "0",
            "min-free-bytes": "16K", "retention-kinds": "still",
        ]])
        let events = try EventTap(serve, self)
        let viewer = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 40)
        let started = Date()

        // About 35 KB/s into some 400 KB: full in well under a minute.
        eventually(serve.log, timeout: .seconds(120)) { !events.named("recording-stopped").isEmpty }
        let stopped = try XCTUnwrap(events.named("recording-stopped").first)
        let cut = try XCTUnwrap(stopped.data["file"] as? String)
        let facts = try XCTUnwrap(stopped.data["facts"] as? [String: Any], "\(stopped.data)")
        XCTAssertTrue((facts["error"] as? String ?? "").contains("No space left on device"), "\(facts)")
        XCTAssertTrue(viewer.isRunning, "the consumer is still reading when the disk is full")
        print("disk full after \(Date().timeIntervalSince(started)) s")

        // The cut file plays, with the frames its facts say.
        let probe = try probeFile(disk.appendingPathComponent(cut))
        XCTAssertGreaterThan(probe.duration, 1, "\(probe)")
        XCTAssertEqual(probe.frames, facts["frames"] as? Int)

        // Retention ran: the still went to make room.
        eventually("\(events.raw)\n\(serve.log)", timeout: .seconds(15)) { events.named("deleted").contains { $0.data["file"] as? String == still.lastPathComponent } }
        XCTAssertEqual(events.named("deleted").first?.data["reason"] as? String, "min-free-bytes")
        XCTAssertFalse(exists(still))

        // /status and /events say why; the recording waits for room.
        let status = try serve.curl("GET", "/status").json()
        let recording = try XCTUnwrap(status["recording"] as? [String: Any], "\(status)")
        XCTAssertEqual(recording["state"] as? String, "waiting-for-room", "\(status)")
        XCTAssertTrue((recording["problem"] as? String ?? "").contains("No space left on device"), "\(recording)")
        let message = events.named("error").compactMap { $0.data["message"] as? String }
            .first { $0.contains("stopped by itself: No space left on device") }
        XCTAssertNotNil(message, "\(events.raw)")
        XCTAssertTrue(message?.contains("recording resumes in a new file when there is room") == true, message ?? "")
        XCTAssertEqual(status["state"] as? String, "running", "the camera runs on")

        // A start is refused and leaves no file; nothing new is listed.
        let files = mp4s(disk)
        let refused = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(refused.status, 507, refused.text)
        XCTAssertTrue(refused.error.contains("no room to record"), refused.text)
        XCTAssertEqual(mp4s(disk), files)
        let listed = try serve.curl("GET", "/recordings")
        XCTAssertEqual(listed.status, 200)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["name"] as? String }.filter { $0.hasSuffix(".mp4") }, [cut], listed.text)

        // The preview, a new consumer and stills to memory work while the disk is full.
        let photo = try serve.curl("POST", "/photo")
        XCTAssertEqual(photo.status, 200, photo.text)
        XCTAssertEqual(photo.headers["content-type"], "image/jpeg")
        let late = try FFmpegViewer(serve.rtsp, transport: "tcp", seconds: 3).finish(timeout: 60)
        XCTAssertGreaterThan(late.frames, 45, "a consumer joining while the disk is full gets frames: \(late)")

        // Space freed: recording resumes by itself, in a new file.
        try FileManager.default.removeItem(at: filler)
        func resumedFile() -> String? {
            events.named("recording-started").compactMap { $0.data["file"] as? String }.first { $0 != cut }
        }
        eventually(serve.log, timeout: .seconds(30)) { resumedFile() != nil }
        let resumed = try XCTUnwrap(resumedFile())
        XCTAssertTrue(serve.log.contains("recording resumed in \(resumed): there is room again"), serve.log)
        XCTAssertTrue(exists(disk.appendingPathComponent(cut)), "the cut file is kept (segments are not in retention-kinds)")

        let watched = viewer.finish(timeout: 90)
        XCTAssertGreaterThan(watched.frames, 40 * 30 * 9 / 10, "the first consumer got every second of its 40: \(watched)")
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
        XCTAssertGreaterThan(try probeFile(disk.appendingPathComponent(resumed)).duration, 0.5)
    }

    /// On a full disk a start is refused with the reason (507), no file is made or listed;
    /// once there is room it records.
    func testStartOnAFullDiskIsRefusedWithoutAFile() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let filler = try fill(disk)
        let serve = try ServeProcess(self, ["recording": ["folder": disk.path]])
        let refused = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(refused.status, 507, refused.text)
        XCTAssertTrue(refused.error.contains("no room to record in \(disk.path)"), refused.text)
        XCTAssertTrue(refused.error.contains("min-free-bytes"), refused.text)
        XCTAssertEqual(mp4s(disk), [], "no file is made")
        XCTAssertEqual(try serve.curl("GET", "/recordings").text, "[]")
        let clip = try serve.curl("POST", "/clip?seconds=1")
        XCTAssertEqual(clip.status, 507, clip.text)
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? []).sorted(), ["filler.bin"])
        let status = try serve.curl("GET", "/status").json()
        XCTAssertEqual((status["recording"] as? [String: Any])?["state"] as? String, "idle", "\(status)")

        try FileManager.default.removeItem(at: filler)
        let ok = try serve.curl("POST", "/recording/start")
        XCTAssertEqual(ok.status, 200, ok.text)
        eventually("a recording listed", timeout: .seconds(20)) { (try? serve.curl("GET", "/recordings").text.contains(".mp4")) == true }
        XCTAssertEqual(try serve.curl("POST", "/recording/stop").status, 200)
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
    }

    /// On a full disk an event trigger is refused as a clip is (507, the same reason), by the
    /// API and by SIGUSR2, and a SIGUSR1 still fails with a sentence naming the file, not
    /// Foundation's error dump; nothing is left on the disk. Once there is room a trigger is
    /// taken, and the clip that then fills the disk fails in words naming its file.
    func testAFullDiskRefusesEventsAndAStillFailsInASentence() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let filler = try fill(disk)
        let serve = try ServeProcess(self, ["recording": ["folder": disk.path]])
        let refused = try serve.curl("POST", "/event")
        XCTAssertEqual(refused.status, 507, refused.text)
        XCTAssertTrue(refused.error.hasPrefix("no event clip: no room to record in \(disk.path)"), refused.text)

        kill(serve.pid, SIGUSR2)
        XCTAssertTrue(serve.waitForLog("could not record an event clip: "), serve.log)
        kill(serve.pid, SIGUSR1)
        XCTAssertTrue(serve.waitForLog("could not save a still: "), serve.log)
        let lines = serve.log.split(separator: "\n")
        let event = try XCTUnwrap(lines.first { $0.contains("could not record an event clip: ") })
        XCTAssertTrue(event.contains("no room to record in \(disk.path)"), String(event))
        let still = try XCTUnwrap(lines.first { $0.contains("could not save a still: ") })
        XCTAssertTrue(still.contains("could not save a still: No space left on device: cannot write \(disk.path)/"), String(still))
        XCTAssertTrue(still.hasSuffix(".jpg"), String(still))
        XCTAssertFalse(still.contains("NSCocoaErrorDomain") || still.contains("UserInfo"), String(still))
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? []).sorted(), ["filler.bin"])

        // With room, a trigger is taken; a clip that then fills the disk says so in words.
        try FileManager.default.removeItem(at: filler)
        var reply = try serve.curl("POST", "/event?post-seconds=60")
        // The event ring needs a keyframe first: 503 until then.
        eventually("POST /event to be accepted (still \(reply.status))", timeout: .seconds(30)) {
            if reply.status == 503 { reply = (try? serve.curl("POST", "/event?post-seconds=60")) ?? reply }
            return reply.status != 503
        }
        XCTAssertEqual(reply.status, 200, reply.text)
        let name = try XCTUnwrap(try reply.json()["file"] as? String, reply.text)
        XCTAssertTrue(serve.waitForLog("error: event clip \(name): ", timeout: 90), serve.log)
        let failed = try XCTUnwrap(serve.log.split(separator: "\n").first { $0.contains("error: event clip \(name): ") })
        XCTAssertTrue(failed.hasSuffix("error: event clip \(name): No space left on device: cannot write \(disk.path)/\(name)"),
                      String(failed))
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
    }

    /// `[recording] continuous` on a full disk: no file is made, /status says it waits for
    /// room and why; once there is room it starts by itself.
    func testContinuousRecordingOnAFullDiskWaitsAndStartsWhenThereIsRoom() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let filler = try fill(disk)
        let serve = try ServeProcess(self, ["recording": ["folder": disk.path, "continuous": "true"]])
        XCTAssertTrue(serve.waitForLog("could not start the continuous recording: no room to record"), serve.log)
        let status = try serve.curl("GET", "/status").json()
        let recording = try XCTUnwrap(status["recording"] as? [String: Any], "\(status)")
        XCTAssertEqual(recording["state"] as? String, "waiting-for-room", "\(status)")
        XCTAssertTrue((recording["problem"] as? String ?? "").contains("no room to record"), "\(recording)")
        XCTAssertEqual(mp4s(disk), [], "no file is made")
        XCTAssertEqual(try serve.curl("POST", "/recording/start").status, 507)

        try FileManager.default.removeItem(at: filler)
        XCTAssertTrue(serve.waitForLog("recording resumed in "), serve.log)
        eventually(serve.log, timeout: .seconds(20)) { (try? serve.curl("GET", "/recordings").text.contains(".mp4")) == true }
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
        let files = mp4s(disk)
        XCTAssertEqual(files.count, 1, "\(files)")
        XCTAssertGreaterThan(try probeFile(disk.appendingPathComponent(files[0])).duration, 0.5)
    }

    /// A clip that fills the disk is answered with what it holds, playable, its facts saying
    /// why it is short; nothing is left in the folder.
    func testAClipCutByAFullDiskIsAnsweredWithWhatItHolds() throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let serve = try ServeProcess(self, ["recording": ["folder": disk.path, "min-free-bytes": "0"]])
        let body = serve.dir.appendingPathComponent("clip.mp4")
        // 30 s at about 35 KB/s do not fit in 320 KiB.
        let clip = try serve.curl("POST", "/clip?seconds=30", output: body)
        XCTAssertEqual(clip.status, 200, clip.text)
        let facts = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data((clip.headers["x-plumb-clip"] ?? "").utf8))
                                  as? [String: Any], "\(clip.headers)")
        let short = try XCTUnwrap(facts["cut_short"] as? String, "\(facts)")
        XCTAssertTrue(short.contains("No space left on device"), short)
        XCTAssertTrue(short.contains("of the 30 s asked for"), short)
        let probe = try probeFile(body)
        XCTAssertGreaterThan(probe.duration, 1, "\(probe)")
        XCTAssertEqual(probe.frames, facts["frames"] as? Int, "the facts count the frames the file holds")
        eventually("the clip's file is gone once answered", timeout: .seconds(10)) { ((try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? []).isEmpty }
        // The API and the camera run on.
        XCTAssertEqual(try serve.curl("POST", "/photo").status, 200)
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
        print("clip cut by a full disk: \(short)")
    }

    /// A bad retention value stops the daemon before it starts, naming the group and key.
    func testBadRetentionValuesAreConfigErrors() throws {
        for (key, bad) in [("max-bytes", "lots"), ("min-free-bytes", "150%"), ("max-age", "1w"), ("retention-kinds", "segments")] {
            let serve = try ServeProcess(self, ["recording": [key: bad]], waitForReady: false)
            let (code, log) = serve.exit()
            XCTAssertNotEqual(code, 0, log)
            XCTAssertTrue(log.contains("[recording] \(key)"), log)
            XCTAssertTrue(log.contains(bad), log)
        }
    }
}
