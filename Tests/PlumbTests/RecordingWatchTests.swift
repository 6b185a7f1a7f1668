import Foundation
import PlumbTestSupport
import Synchronization
import XCTest
@testable import Plumb

/// `Recording.watch`: what a clip's wait wakes on instead of polling — a call at every frame
/// the muxer gets and at the file's end, none after `unwatch`.
final class RecordingWatchTests: XCTestCase {
    func testAWatcherHearsEveryFrameAndTheEndUntilUnwatched() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 160, height: 120))
        addTeardownBlock { await session.close() }
        let recording = try await session.startRecording(to: dir.appendingPathComponent("watched.mp4"))
        let calls = Mutex(0)
        let token = recording.watch { calls.withLock { $0 += 1 } }
        let gone = Mutex(0)
        recording.unwatch(recording.watch { gone.withLock { $0 += 1 } })
        await eventually("10 frames") { recording.progress.frames >= 10 }
        let framesBefore = recording.progress.frames
        let callsBefore = calls.withLock { $0 }
        XCTAssertGreaterThanOrEqual(callsBefore, 1, "a call per frame")
        // Watched from a frame or two in: every later frame is heard.
        await eventually("five more frames heard") { calls.withLock { $0 } >= callsBefore + 5 }
        let facts = try await recording.stop()
        let heard = calls.withLock { $0 }
        XCTAssertGreaterThanOrEqual(heard, facts.frames - framesBefore + 1,
                                    "every frame after the first \(framesBefore) and the end (\(facts.frames) frames)")
        XCTAssertEqual(gone.withLock { $0 }, 0, "an unwatched watcher is never called")
        recording.unwatch(token)
        XCTAssertEqual(try ProbedVideo(recording.url).packets, facts.frames, "ffprobe finds the frames counted")
    }
}
