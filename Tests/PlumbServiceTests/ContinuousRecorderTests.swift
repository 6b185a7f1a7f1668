import Foundation
@testable import Plumb
@testable import PlumbService
import PlumbTestSupport
import Synchronization
import XCTest

/// `ContinuousRecorder` on a real session (the test pattern as the camera) writing real
/// files, read back by ffprobe: the transitions `RecorderStateTests` takes one by one, in
/// the order a daemon meets them — a stop in the middle of a roll, a roll that cannot make
/// its file, a branch that ends by itself on a full disk, the camera going and coming back.
final class ContinuousRecorderTests: XCTestCase {
    /// The recorder's events, from whichever task publishes them.
    final class Events: Sendable {
        private let events = Mutex<[ServiceEvent]>([])
        func add(_ event: ServiceEvent) { events.withLock { $0.append(event) } }
        var started: [String] { events.withLock { $0 }.compactMap { if case .recordingStarted(let f) = $0 { f } else { nil } } }
        var stopped: [String] { events.withLock { $0 }.compactMap { if case .recordingStopped(let f, _) = $0 { f } else { nil } } }
        /// The frames each `recording-stopped` counted, by file.
        var stoppedFrames: [String: Int] {
            Dictionary(events.withLock { $0 }.compactMap { if case .recordingStopped(let f, let facts) = $0 { (f, (facts as? RecordingFacts)?.frames ?? -1) } else { nil } },
                       uniquingKeysWith: { $1 })
        }
        var errors: [String] { events.withLock { $0 }.compactMap { if case .error(let m) = $0 { m } else { nil } } }
    }

    private func recorder(in dir: URL, events: Events) -> ContinuousRecorder {
        ContinuousRecorder(settings: .init(folder: RecordingsFolder(dir.path), codec: .h264, segmentSeconds: 0,
                                           splitOnRotation: false),
                           publish: events.add, log: { _ in })
    }

    private func openCamera() async throws -> CaptureSession {
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240))
        addTeardownBlock { await session.close() }
        return session
    }

    /// The MP4 files in `dir`, by name.
    private func mp4s(_ dir: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mp4") })
    }

    /// A stop that comes while the recording rolls to its next file waits for the roll, then
    /// stops the new file: both files are finalized, announced once each, and play.
    func testAStopWhileRollingStopsTheNextFileAndFinalizesBoth() async throws {
        let dir = try temporaryDirectory(self)
        let events = Events()
        let recorder = recorder(in: dir, events: events)
        let session = try await openCamera()
        await recorder.sessionOpened(session)
        let started = try await recorder.start()
        try await session.waitForFrames(20)

        let roll = Task { await recorder.rollOver() }
        // Checked every millisecond: the roll is short, and the stop must come while it runs.
        await eventually("the roll to begin", every: .milliseconds(1)) {
            if case .rolling = await recorder.state { true } else { false }
        }
        let stopped = try await recorder.stop()
        await roll.value

        XCTAssertEqual(stopped.files.count, 2, "\(stopped.files)")
        XCTAssertEqual(stopped.files.first, started.file)
        XCTAssertEqual(stopped.file, stopped.files.last, "the stop answers with the file the roll made")
        XCTAssertNotNil(stopped.facts)
        XCTAssertEqual(events.started, stopped.files)
        XCTAssertEqual(events.stopped.sorted(), stopped.files.sorted(), "each file announced stopped once")
        XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(dir.appendingPathComponent(started.file).path), 10)
        // The new file is kept when a frame reached it before the stop; one stopped before its
        // first frame leaves nothing (no header-only MP4).
        if stopped.facts?.frames == 0 {
            XCTAssertEqual(try mp4s(dir), [started.file])
        } else {
            XCTAssertEqual(try mp4s(dir), Set(stopped.files))
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(dir.appendingPathComponent(stopped.file).path),
                           stopped.facts?.frames)
        }
        let state = await recorder.state
        XCTAssertEqual("\(state)", "idle")
        XCTAssertEqual(events.errors, [])
    }

    /// A start and a stop sent together. Whichever comes first, both are answered for the
    /// same file, and no file is left unannounced: a stop that comes while the file is being
    /// made waits for it and stops it (the start is answered with the file, the stop with its
    /// facts); one that comes before the start is "not recording", and the start records.
    func testAStartAndAStopTogetherAnswerForTheSameFile() async throws {
        let dir = try temporaryDirectory(self)
        let events = Events()
        let recorder = recorder(in: dir, events: events)
        let session = try await openCamera()
        await recorder.sessionOpened(session)
        var stoppedWhileMaking = 0
        for round in 0..<5 {
            async let startAnswer = answer { () async throws(RecorderError) in try await recorder.start() }
            async let stopAnswer = answer { () async throws(RecorderError) in try await recorder.stop() }
            let started = try await startAnswer.get()
            switch await stopAnswer {
            case .success(let stopped):
                stoppedWhileMaking += 1
                XCTAssertEqual(stopped.file, started.file, "round \(round)")
                XCTAssertEqual(stopped.files, [started.file], "round \(round)")
                XCTAssertNotNil(stopped.facts, "round \(round)")
            case .failure(let error):
                guard case .notRecording = error else { return XCTFail("round \(round): \(error)") }
                let stopped = try await recorder.stop()
                XCTAssertEqual(stopped.file, started.file, "round \(round)")
            }
            let state = await recorder.state
            XCTAssertEqual("\(state)", "idle", "round \(round)")
        }
        // Every file kept is announced; a file stopped before its first frame is announced
        // too, with 0 frames, and leaves nothing (its name is not given again).
        let kept = try mp4s(dir)
        XCTAssertEqual(kept.subtracting(events.started), [], "every file made is announced")
        let frames = events.stoppedFrames
        for name in Set(events.started).subtracting(kept) { XCTAssertEqual(frames[name], 0, name) }
        XCTAssertEqual(Set(events.started).count, 5, "a name for each round: \(events.started)")
        XCTAssertEqual(events.stopped.sorted(), events.started.sorted())
        XCTAssertEqual(events.errors, [])
        print("start and stop together: the stop came while the file was made in \(stoppedWhileMaking) of 5 rounds; "
              + "\(5 - kept.count) stopped before their first frame")
    }

    /// A roll that cannot make its file (the folder is gone) is reported, and the recording
    /// goes on in the file it has: once the folder is back, the stop finalizes that file,
    /// whole.
    func testARollThatCannotMakeItsFileGoesOnInTheSameFile() async throws {
        let dir = try temporaryDirectory(self)
        let folder = dir.appendingPathComponent("recordings"), away = dir.appendingPathComponent("away")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let events = Events()
        let recorder = recorder(in: folder, events: events)
        let session = try await openCamera()
        await recorder.sessionOpened(session)
        let started = try await recorder.start()
        try await session.waitForFrames(20)

        // The open file moves with its folder; a new file in the old place cannot be made.
        try FileManager.default.moveItem(at: folder, to: away)
        await recorder.rollOver()
        let rolledState = await recorder.state
        XCTAssertEqual("\(rolledState)", "recording")
        let current = await recorder.currentFile
        XCTAssertEqual(current, started.file)
        XCTAssertEqual(events.errors.count, 1, "\(events.errors)")
        XCTAssertTrue(events.errors.first?.hasPrefix("could not start the next segment ") == true, "\(events.errors)")
        XCTAssertTrue(events.errors.first?.hasSuffix("; recording on in \(started.file)") == true, "\(events.errors)")

        try FileManager.default.moveItem(at: away, to: folder)
        try await session.waitForFrames(20)
        let stopped = try await recorder.stop()
        XCTAssertEqual(stopped.files, [started.file])
        XCTAssertEqual(stopped.file, started.file)
        let frames = try XCTUnwrap(stopped.facts?.frames)
        XCTAssertGreaterThan(frames, 30, "the frames from before and after the failed roll")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(folder.appendingPathComponent(started.file).path), frames)
        XCTAssertEqual(try mp4s(folder), [started.file])
    }

    /// A write error (a real full disk) ends the file where it stands, and the recording waits
    /// for room: nothing retries into the full disk, a start is refused (no room) without making a
    /// file, and once space is freed the recording resumes in a new file.
    func testAFullDiskEndsTheFileAndTheRecordingResumesWhenThereIsRoom() async throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let events = Events()
        let folder = RecordingsFolder(disk.path)
        // Retention may delete nothing here: the test frees the space itself.
        let retention = Retention(policy: RetentionPolicy(minFree: .bytes(0), kinds: []), folder: folder,
                                  inUse: FilesInUse(), publish: events.add, log: { _ in })
        let recorder = ContinuousRecorder(settings: .init(folder: folder, codec: .h264, segmentSeconds: 0,
                                                          splitOnRotation: false, retention: retention),
                                          publish: events.add, log: { _ in })
        let session = try await openCamera()
        await recorder.sessionOpened(session)
        let started = try await recorder.start()
        await eventually("the branch to end by itself") {
            if case .starting(.waitingForRoom) = await recorder.state { true } else { false }
        }
        // The state changes first, then the file is finalized and reported.
        await eventually("the error event") { !events.errors.isEmpty }

        XCTAssertEqual(events.started, [started.file])
        XCTAssertEqual(events.stopped, [started.file])
        XCTAssertEqual(events.errors.count, 1, "\(events.errors)")
        XCTAssertTrue(events.errors.first?.contains("stopped by itself: No space left on device") == true, "\(events.errors)")
        XCTAssertTrue(events.errors.first?.contains("recording resumes in a new file when there is room") == true,
                      "\(events.errors)")
        let why = await recorder.waitingForRoom
        XCTAssertTrue(why?.contains("No space left on device") == true, why ?? "nil")
        let current = await recorder.currentFile
        XCTAssertNil(current)

        // Still full: no retry, and a start is refused without leaving a file.
        await recorder.resumeIfRoom()
        do {
            _ = try await recorder.start()
            XCTFail("a start on a full disk")
        } catch {
            guard case .noRoom(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("no room to record"), why)
        }
        XCTAssertEqual(events.started, [started.file])
        XCTAssertEqual(try mp4s(disk), [started.file])

        // Space freed: the recording resumes in a new file.
        try FileManager.default.removeItem(at: disk.appendingPathComponent(started.file))
        await recorder.resumeIfRoom()
        XCTAssertEqual(events.started.count, 2, "\(events.started)")
        XCTAssertNotEqual(events.started.last, started.file)
        let resumed = await recorder.currentFile
        XCTAssertEqual(resumed, events.started.last)
        let stopped = try await recorder.stop()
        XCTAssertEqual(stopped.file, events.started.last)
    }

    /// Timed rolls make the next segments of the one recording: each old file is announced
    /// (with its facts) once it is finalized, then let go of, so a recording that runs for
    /// months keeps only the file it writes; the stop answers with the last file's facts.
    func testRollsAnnounceEachFileAndLetGoOfTheFinishedOnes() async throws {
        let dir = try temporaryDirectory(self)
        let events = Events()
        let recorder = recorder(in: dir, events: events)
        let session = try await openCamera()
        await recorder.sessionOpened(session)
        let started = try await recorder.start()
        guard case .recording(let recording) = await recorder.state else { return XCTFail("not recording") }
        for _ in 0..<3 {
            try await session.waitForFrames(10)
            await recorder.rollOver()
        }
        await eventually("three files announced as stopped: \(events.stopped)", timeout: .seconds(30)) { events.stopped.count == 3 }
        XCTAssertEqual(events.started.count, 4, "\(events.started)")
        XCTAssertEqual(events.started.first, started.file)
        XCTAssertEqual(events.stopped, Array(events.started.prefix(3)), "each old file announced as it finished")
        XCTAssertEqual(recording.segments.map(\.url.lastPathComponent), [events.started.last],
                       "only the segment being written is kept")
        let current = await recorder.currentFile
        XCTAssertEqual(current, events.started.last)

        try await session.waitForFrames(10)
        let stopped = try await recorder.stop()
        XCTAssertEqual(stopped.files, events.started)
        XCTAssertEqual(stopped.file, events.started.last)
        XCTAssertNil(stopped.facts?.segments, "the last file's facts")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(dir.appendingPathComponent(stopped.file).path),
                       stopped.facts?.frames)
        XCTAssertEqual(events.stopped, stopped.files)
        XCTAssertEqual(events.errors, [])
    }

    /// The camera lost while recording: the file is finalized, the recording waits and
    /// resumes in a new file with the next session; the stop answers with both files.
    func testTheCameraLostAndBackResumesInANewFile() async throws {
        let dir = try temporaryDirectory(self)
        let events = Events()
        let recorder = recorder(in: dir, events: events)
        let first = try await openCamera()
        await recorder.sessionOpened(first)
        let started = try await recorder.start()
        try await first.waitForFrames(20)

        await recorder.sessionLost()
        await first.close()
        let waiting = await recorder.state
        XCTAssertEqual("\(waiting)", "starting (waiting for the camera)")
        XCTAssertEqual(events.stopped, [started.file], "the interrupted file is finalized at once")
        do {
            _ = try await recorder.start()
            XCTFail("a start without a camera")
        } catch {
            guard case .noCamera = error else { return XCTFail("\(error)") }
        }

        let second = try await openCamera()
        await recorder.sessionOpened(second)
        let resumed = try await XCTUnwrapAsync(await recorder.currentFile)
        XCTAssertNotEqual(resumed, started.file)
        try await second.waitForFrames(20)
        let stopped = try await recorder.stop()
        XCTAssertEqual(stopped.files, [started.file, resumed])
        XCTAssertEqual(events.stopped, [started.file, resumed])
        for name in stopped.files {
            XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(dir.appendingPathComponent(name).path), 10, name)
        }
    }
}

/// A request's answer or the recorder's error, as a value.
private func answer<T>(_ request: () async throws(RecorderError) -> T) async -> Result<T, RecorderError> {
    do { return .success(try await request()) } catch { return .failure(error) }
}
