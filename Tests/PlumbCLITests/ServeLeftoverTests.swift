import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` killed with SIGKILL (a power cut, the OOM killer) and started again on the
/// same recordings: what the crash left is repaired before anything records, and no file
/// that does not play is ever listed. Checked with ffprobe, ffmpeg and exiftool.
final class ServeLeftoverTests: XCTestCase {
    /// Continuous 3 s segments (1 s fragments: 30 frames at 30 fps), turned 90 degrees.
    static let settings = ["recording": ["continuous": "true", "segment-seconds": "3"],
                           "rotation": ["accelerometer": "fixed:90"]]
    static let fragmentFrames = 30
    /// What the test's own clock adds to a file's length: it sees a file start when the log
    /// says so (polled every 10 ms, 50 ms at start-up), a little after its first frame.
    static let clockSlack = 12

    /// 20 kills at random moments (seeded, printed: PLUMB_KILL_SEED=N replays another
    /// schedule), a quarter of them aimed at a file's first second, where mp4mux has not
    /// written any movie header yet. After each restart every file of the killed run is a
    /// normal MP4 — or, when it held nothing playable, in damaged/ as it was; `/status` says
    /// what was done; `/recordings` lists only playable files; the files of earlier runs are
    /// not touched. At the end every repaired file is checked in depth: seekable, turned 90
    /// degrees, every frame a reader found in the file as the crash left it kept, and at
    /// most one fragment lost.
    func testKillDashNineAtRandomMomentsLeavesOnlyNormalSeekableRecordings() throws {
        let seed = ProcessInfo.processInfo.environment["PLUMB_KILL_SEED"].flatMap { UInt64($0) } ?? 10
        var random = SplitMix64(seed: seed)
        print("kill -9 schedule: seed \(seed) (PLUMB_KILL_SEED=N for another)")
        var serve = try ServeProcess(self, Self.settings)
        let dir = serve.dir, folder = serve.folder
        let crashes = dir.appendingPathComponent("as-the-crash-left-them")
        try FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: false)
        /// The files checked after earlier restarts: they must not change any more.
        var settled: [String: FileStamp] = [:]
        /// The files the crashes hit and the repairs rewrote: for the checks at the end.
        var repaired: [(name: String, copy: URL, frames: Int, recorded: Int?)] = []
        var outcomes: [String: Int] = [:]

        for kill in 1...20 {
            var starts = FileStarts()
            starts.update(serve.log)
            let aimed = kill % 4 == 0
            if aimed, kill % 8 == 0 {
                // Into the first second of the run's next segment.
                let before = starts.seen.count
                XCTAssertTrue(starts.follow(serve, for: 10) { $0.seen.count > before }, "no next segment: \(serve.log)")
            }
            _ = starts.follow(serve, for: aimed ? random.uniform(0.05, 0.8) : random.uniform(0.2, 5)) { _ in false }
            let killed = Date()
            let (_, log) = serve.stop(SIGKILL)
            starts.update(log, at: killed)  // lines the last look missed came before the kill
            let newest = starts.newest
            print("kill \(kill): \(aimed ? "aimed" : "random"), "
                  + String(format: "%.2f s into %@", killed.timeIntervalSince(newest?.time ?? killed), newest?.name ?? "?"))

            // The files of the run as the crash left them.
            let names = try recordings(in: folder).filter { settled[$0] == nil }
            var left: [String: (copy: URL, bytes: Data, normal: Bool)] = [:]
            for name in names {
                let copy = crashes.appendingPathComponent("\(kill)-\(name)")
                try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: copy)
                left[name] = (copy, try Data(contentsOf: copy), try IndependentReaders.isNormalMP4(copy.path))
            }

            serve = try ServeProcess(self, Self.settings, dir: dir)
            let repairs = try XCTUnwrap(try serve.curl("GET", "/status").json()["repairs"] as? [[String: Any]])
            let listed = try listing(serve)  // before the checks below give the new run time to add files
            for name in names {
                let was = try XCTUnwrap(left[name])
                let report = repairs.first { $0["file"] as? String == name }
                let file = folder.appendingPathComponent(name)
                if was.normal {
                    XCTAssertNil(report, "\(name) was a normal MP4 and must be left alone: \(repairs)")
                    XCTAssertEqual(try Data(contentsOf: file), was.bytes, "\(name) was rewritten")
                    outcomes["finished before the kill", default: 0] += 1
                } else if let movedTo = report?["moved_to"] as? String {
                    XCTAssertEqual(report?["action"] as? String, "moved", "\(name): \(repairs)")
                    XCTAssertEqual(try IndependentReaders.frameHashes(was.copy.path), [],
                                   "\(name) held frames ffmpeg plays, yet was moved")
                    XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), name)
                    XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(movedTo)), was.bytes,
                                   "\(name) is in \(movedTo) as it was")
                    outcomes["moved to damaged/", default: 0] += 1
                    // Nothing playable: its frames were all in the fragment being written.
                    if let start = starts.seen[name] {
                        XCTAssertLessThanOrEqual(recordedFrames(start, starts, killed), Self.fragmentFrames + Self.clockSlack,
                                                 "\(name) held more than a fragment, yet nothing playable")
                    }
                } else {
                    XCTAssertEqual(report?["action"] as? String, "repaired", "\(name): \(repairs)")
                    XCTAssertTrue(try IndependentReaders.isNormalMP4(file.path), "\(name) is not a normal MP4 after kill \(kill)")
                    repaired.append((name, was.copy, report?["frames"] as? Int ?? -1,
                                     starts.seen[name].map { recordedFrames($0, starts, killed) }))
                    outcomes["repaired", default: 0] += 1
                }
                if FileManager.default.fileExists(atPath: file.path) { settled[name] = try FileStamp(file) }
            }
            XCTAssertEqual(Set(repairs.compactMap { $0["file"] as? String }).subtracting(names), [],
                           "the repairs name only what the crash left")
            for (name, stamp) in settled where !names.contains(name) {
                XCTAssertEqual(try FileStamp(folder.appendingPathComponent(name)), stamp, "\(name) changed at kill \(kill)")
            }
            // Listed: every playable file; besides them only the new run's, never one in damaged/.
            var newRun = FileStarts()
            newRun.update(serve.log)
            XCTAssertEqual(Set(settled.keys).subtracting(listed), [], "not listed")
            XCTAssertEqual(listed.subtracting(settled.keys).subtracting(newRun.seen.keys), [], "listed, yet not playable")
            for name in names {
                let download = try serve.curl("GET", "/recordings/\(name)")
                XCTAssertEqual(download.status, settled[name] == nil ? 404 : 200, "GET /recordings/\(name)")
            }
        }
        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)

        // In depth: each file the crashes hit is a seekable MP4 with every frame ffmpeg found
        // in it as the crash left it, turned as recorded, and lost at most one fragment.
        var worstLoss = Int.min
        for file in repaired {
            let path = folder.appendingPathComponent(file.name).path
            try checkSeekable(path, file.name)
            let hashes = try IndependentReaders.frameHashes(path)
            XCTAssertEqual(hashes.count, file.frames, "\(file.name): /status said \(file.frames) frames")
            let before = try IndependentReaders.frameHashes(file.copy.path)
            XCTAssertEqual(Array(hashes.prefix(before.count)), before, "\(file.name): a frame a reader found is lost")
            if let recorded = file.recorded {
                worstLoss = max(worstLoss, recorded - hashes.count)
                XCTAssertLessThanOrEqual(recorded - hashes.count, Self.fragmentFrames + Self.clockSlack,
                                         "\(file.name): \(hashes.count) frames kept of about \(recorded) recorded")
            }
        }
        for name in try recordings(in: folder) {
            XCTAssertTrue(try IndependentReaders.isNormalMP4(folder.appendingPathComponent(name).path), name)
        }
        print("after 20 kills: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")); "
              + "worst loss \(worstLoss) frames (a fragment is \(Self.fragmentFrames))")
        XCTAssertGreaterThan(outcomes["moved to damaged/"] ?? 0, 0, "no kill landed in a file's first second")
        XCTAssertGreaterThan(outcomes["repaired"] ?? 0, 5)
    }

    /// About how many frames were recorded into the file that started at `start`: until the
    /// next file started, or the kill.
    private func recordedFrames(_ start: Date, _ starts: FileStarts, _ killed: Date) -> Int {
        let end = starts.seen.values.filter { $0 > start }.min() ?? killed
        return Int((end.timeIntervalSince(start) * ServeProcess.fps).rounded())
    }

    /// Two daemons never share a recordings folder: the second says why and exits 1, the
    /// first goes on recording.
    func testASecondDaemonOnTheSameFolderIsRefused() throws {
        let first = try ServeProcess(self, Self.settings)
        let second = try ServeProcess(self, ["recording": ["folder": first.folder.path]], waitForReady: false)
        let (code, log) = second.exit()
        XCTAssertEqual(code, 1, log)
        XCTAssertTrue(log.contains("is in use by another plumb process"), log)
        XCTAssertTrue(log.contains("give each plumb serve its own [recording] folder"), log)
        let status = try first.curl("GET", "/status").json()
        XCTAssertEqual((status["recording"] as? [String: Any])?["state"] as? String, "recording", "\(status)")
        XCTAssertEqual(first.stop().code, 0)
    }

    /// What the start-up repair cannot do is an error (the log, `last_error`, `/status`
    /// `repairs`); the daemon serves anyway, and the file is left where it was, unlisted.
    func testWhatTheRepairCannotDoIsAnErrorAndTheFileStaysUnlisted() throws {
        let dir = try temporaryDirectory(self)
        let folder = dir.appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data().write(to: folder.appendingPathComponent("2026-01-01T10-00-00Z.mp4"))
        try Data("in the way".utf8).write(to: folder.appendingPathComponent("damaged"))
        let serve = try ServeProcess(self, dir: dir)
        XCTAssertTrue(serve.log.contains("error: repair: 2026-01-01T10-00-00Z.mp4: error: "), serve.log)
        let status = try serve.curl("GET", "/status").json()
        let repairs = try XCTUnwrap(status["repairs"] as? [[String: Any]], "\(status)")
        XCTAssertEqual(repairs.map { $0["action"] as? String }, ["failed"])
        XCTAssertTrue((repairs.first?["detail"] as? String ?? "").contains("is not a folder"), "\(repairs)")
        XCTAssertTrue(((status["last_error"] as? [String: Any])?["message"] as? String ?? "").contains("repair: "), "\(status)")
        XCTAssertEqual(try listing(serve), [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("2026-01-01T10-00-00Z.mp4").path))
        XCTAssertEqual(serve.stop().code, 0)
    }

    // MARK: -

    private func recordings(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") }.sorted()
    }

    /// A duration for ffprobe, a frame where ffmpeg seeks to the middle frame, turned 90
    /// degrees for exiftool; Plumb's own reader agrees. The middle frame, not half the
    /// duration: a file the kill left with one whole frame (seen on a loaded machine) lasts
    /// 33 ms, and half of that falls after its only frame begins, where ffmpeg's exact seek
    /// rightly finds no frame to start.
    private func checkSeekable(_ path: String, _ label: String, line: UInt = #line) throws {
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(path), label, line: line)
        XCTAssertGreaterThan(duration, 0, label, line: line)
        let times = try IndependentReaders.ffprobeFrameTimes(path).sorted()
        let middle = try XCTUnwrap(times.isEmpty ? nil : times[times.count / 2], "\(label): no frame", line: line)
        XCTAssertTrue(try IndependentReaders.ffmpegSeeks(path, to: middle),
                      "\(label): ffmpeg found no frame from \(middle) s; frames at \(times.prefix(3))...\(times.suffix(3)), "
                      + "duration \(duration) s", line: line)
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), 90, label, line: line)
        let inspect = try PlumbProcess.plumb("inspect", "--json", path)
        XCTAssertTrue(inspect.stdout.contains(#""fragmented":false"#) && inspect.stdout.contains(#""rotation":90"#),
                      "\(label): \(inspect.stdout)", line: line)
    }

    /// The names `GET /recordings` lists.
    private func listing(_ serve: ServeProcess, line: UInt = #line) throws -> Set<String> {
        let reply = try serve.curl("GET", "/recordings")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]], reply.text,
                                    line: line)
        return Set(entries.compactMap { $0["name"] as? String })
    }
}

/// The size and date of a file, to see that it is not touched any more.
private struct FileStamp: Equatable {
    var bytes: Int
    var modified: Date

    init(_ file: URL) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        bytes = attributes[.size] as? Int ?? -1
        modified = attributes[.modificationDate] as? Date ?? .distantPast
    }
}

/// When the test saw each file's "recording to" line in the daemon's log.
private struct FileStarts {
    var seen: [String: Date] = [:]

    var newest: (name: String, time: Date)? { seen.max { $0.value < $1.value }.map { ($0.key, $0.value) } }

    mutating func update(_ log: String, at time: Date = Date()) {
        for line in log.split(separator: "\n") where line.contains("recording to ") {
            guard let path = ServeProcess.value(after: "recording to ", in: String(line)) else { continue }
            let name = URL(fileURLWithPath: path).lastPathComponent
            if seen[name] == nil { seen[name] = time }
        }
    }

    /// Watches the log every 10 ms for `seconds`, or until `done`; whether `done` came.
    mutating func follow(_ serve: ServeProcess, for seconds: Double, until done: (FileStarts) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            update(serve.log)
            if done(self) { return true }
            usleep(10_000)  // the log's pace: starts are timed to 10 ms (also for a random wait)
        }
        return false
    }
}
