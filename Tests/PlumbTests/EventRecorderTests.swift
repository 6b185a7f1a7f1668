import Foundation
import PlumbTestSupport
@testable import Plumb
import GStreamer
import Synchronization
import XCTest

/// The event recorder on a real capture session (the test pattern), its clips read by
/// ffprobe and ffmpeg.
final class EventRecorderTests: XCTestCase {
    /// The session going away (camera lost, stop) ends the clip being written with what it
    /// has: a normal MP4 under its real name, in the recordings' codec (H.265 here) and
    /// with the session's capture angle in its matrix; no branch element is left behind.
    func testTheSessionGoingEndsTheClipAsANormalFile() async throws {
        let dir = try temporaryDirectory(self)
        var settings = EventRecorder.Settings()
        settings.preSeconds = 1
        settings.postSeconds = 60
        settings.codec = .h265
        let finished = OneShot<EventClipFacts>()
        let tracker = FilesInUse()
        let recorder = try EventRecorder(settings: settings, tracker: tracker, finished: { finished.succeed($0) })
        let target = dir.appendingPathComponent("event-1.mp4")
        let temporary = dir.appendingPathComponent(EventRecorder.temporaryPrefix + "event-1.mp4")
        XCTAssertThrowsError(try recorder.trigger { (target, temporary) }, "no frames yet") { error in
            guard case CaptureError.notAttached = error else { return XCTFail("\(error)") }
        }

        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        await session.setRotation(.degrees270)
        let elementsBefore = await session.elementCount
        let output = Self.mainEncoding(for: recorder)
        try await session.attach(output)
        await eventually("\(recorder.status)", timeout: .seconds(30)) { recorder.status.ringSeconds >= 1 }
        let trigger = try recorder.trigger { (target, temporary) }
        XCTAssertFalse(trigger.extended)
        XCTAssertGreaterThanOrEqual(trigger.facts.preRecordedSeconds, 1 - 1.0 / 30)
        XCTAssertEqual(trigger.facts.codec, "h265")
        XCTAssertEqual(trigger.facts.rotation, 270)
        XCTAssertNotNil(recorder.status.current)
        // A second of the clip written past the trigger.
        let seconds = trigger.facts.preRecordedSeconds + 1
        await eventually("the clip to hold \(seconds) s: \(recorder.status)") { (recorder.status.current?.seconds ?? 0) >= seconds }
        XCTAssertTrue(FileManager.default.fileExists(atPath: temporary.path), "written under its temporary name")
        XCTAssertEqual(tracker.calls, ["in use \(temporary.path)"], "retention is told which file not to touch")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))

        try await session.detach(output)
        let facts = try await finished.value(timeout: .seconds(30), what: "the clip")
        XCTAssertEqual(facts.state, "finished", "\(facts)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: temporary.path))
        XCTAssertEqual(tracker.calls, ["in use \(temporary.path)", "released \(temporary.path)"])
        XCTAssertTrue(try IndependentReaders.isNormalMP4(target.path))
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(target.path), facts.frames)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try IndependentReaders.ffprobeDuration(target.path)), 1.9)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(target.path), .degrees270)
        let codec = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
                                            "-of", "csv=p=0", target.path])
        XCTAssertEqual(String(codec.prefix { $0.isLetter || $0.isNumber }), "hevc", "with side data the csv line ends in a comma")
        let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-nostdin", "-v", "warning", "-i", target.path, "-f", "null", "-"])
        XCTAssertEqual(decode.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "")
        let elementsAfter = await session.elementCount
        XCTAssertEqual(elementsAfter, elementsBefore, "the branch is gone")
        XCTAssertEqual(recorder.status.clipsWritten, 1)
        XCTAssertNil(recorder.status.current)
        XCTAssertEqual(recorder.status.ringBytes, 0, "no source: the ring let go of its frames")
        await session.close()
    }

    /// Clip after clip leaves no thread, bus watch or Swift wrapper of a GStreamer object
    /// behind: each clip's pipeline and its bus thread go when its file is finished.
    func testClipsLeaveNothingBehind() async throws {
        let dir = try temporaryDirectory(self)
        var settings = EventRecorder.Settings()
        settings.preSeconds = 0.5
        let done = Mutex<[EventClipFacts]>([])
        let recorder = try EventRecorder(settings: settings, finished: { facts in done.withLock { $0.append(facts) } })
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 160, height: 120), rate: FrameRate(30))
        let output = Self.mainEncoding(for: recorder)
        try await session.attach(output)
        await eventually("recorder.status.ringSeconds >= 0.5", timeout: .seconds(30)) { recorder.status.ringSeconds >= 0.5 }
        func clip(_ n: Int) async throws {
            let name = "event-\(n).mp4"
            _ = try recorder.trigger(postSeconds: 0) {
                (dir.appendingPathComponent(name), dir.appendingPathComponent(EventRecorder.temporaryPrefix + name))
            }
            await eventually("clip \(n) to finish", timeout: .seconds(30)) { done.withLock { $0.count } == n }
        }
        try await clip(1)  // warm-up: plugins loaded, pools filled
        let wrappers = LiveCounts.liveObjectWrappers, watches = LiveCounts.liveBusWatches, threads = threadCount
        for n in 2...6 { try await clip(n) }
        await eventually("nothing left behind after 5 clips", timeout: .seconds(10)) {
            LiveCounts.liveObjectWrappers <= wrappers && LiveCounts.liveBusWatches <= watches && threadCount <= threads + 1
        }
        print("event-clip-leaks: wrappers \(wrappers) -> \(LiveCounts.liveObjectWrappers), bus watches \(watches) -> "
              + "\(LiveCounts.liveBusWatches), threads \(threads) -> \(threadCount)")
        XCTAssertEqual(done.withLock { $0.map(\.state) }, Array(repeating: "finished", count: 6))
        for n in 1...6 {
            XCTAssertGreaterThan(try IndependentReaders.ffprobeFrameCount(dir.appendingPathComponent("event-\(n).mp4").path), 0)
        }
        try await session.detach(output)
        await session.close()
    }
}

extension EventRecorderTests {
    /// The ring on the main encoding, as the daemon runs it (`MainEncoding`): the recorder
    /// follows the branch's stream until the branch is detached.
    static func mainEncoding(for recorder: EventRecorder) -> MainEncodingOutput {
        let stream = EncodedStream()
        let following = Following()
        let output = MainEncodingOutput(choice: recorder.choice, stream: stream, onAngle: { recorder.set(angle: $0) }) { _ in
            following.subscription.withLock { s in
                s?.cancel()
                s = nil
            }
        }
        following.subscription.withLock { $0 = recorder.follow(stream) }
        return output
    }
}

private final class Following: Sendable {
    let subscription = Mutex<StreamSubscription?>(nil)
}

/// Records what the recorder says about its files in use.
private final class FilesInUse: EventFileTracker {
    private let log = Mutex<[String]>([])
    var calls: [String] { log.withLock { $0 } }
    func inUse(_ path: String) { log.withLock { $0.append("in use \(path)") } }
    func released(_ path: String) { log.withLock { $0.append("released \(path)") } }
}
