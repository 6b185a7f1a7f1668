import Synchronization
import XCTest
@testable import PlumbService

/// `ClipsInFlight`: a stop waits for the last clip to leave (woken by it, not polling), and a
/// clip's recording loop hears of the cut.
final class ClipsInFlightTests: XCTestCase {
    func testWaitUntilDoneReturnsWhenTheLastClipLeaves() async throws {
        let clips = ClipsInFlight()
        let idle = await clips.waitUntilDone(limit: .zero)
        XCTAssertTrue(idle, "nothing open: done at once")
        try clips.enter()
        try clips.enter()
        let waiter = Task { await clips.waitUntilDone(limit: .seconds(60)) }
        clips.leave()
        clips.leave()
        let done = await waiter.value
        XCTAssertTrue(done)
        XCTAssertEqual(clips.open, 0)
    }

    func testWaitUntilDoneSaysFalseOnTimeOutAndOnCancellation() async throws {
        let clips = ClipsInFlight()
        try clips.enter()
        let timedOut = await clips.waitUntilDone(limit: .milliseconds(50))
        XCTAssertFalse(timedOut, "a clip is still open")
        let waiter = Task { await clips.waitUntilDone(limit: .seconds(60)) }
        waiter.cancel()
        let cancelled = await waiter.value
        XCTAssertFalse(cancelled)
        clips.leave()
        let done = await clips.waitUntilDone(limit: .seconds(60))
        XCTAssertTrue(done)
    }

    func testCutWatchersAreCalledOnceAndAfterTheCutAtOnce() throws {
        let clips = ClipsInFlight()
        let calls = Mutex(0)
        let token = clips.watchCut { calls.withLock { $0 += 1 } }
        let gone = clips.watchCut { calls.withLock { $0 += 100 } }
        clips.unwatchCut(gone)
        _ = token
        try clips.enter()
        XCTAssertEqual(clips.cut(because: "plumb serve stops"), 1)
        clips.cut(because: "again")
        XCTAssertEqual(calls.withLock { $0 }, 1, "called once, the unwatched one never")
        XCTAssertEqual(clips.cutReason, "plumb serve stops")
        _ = clips.watchCut { calls.withLock { $0 += 10 } }
        XCTAssertEqual(calls.withLock { $0 }, 11, "a watcher after the cut is called at once")
        XCTAssertThrowsError(try clips.enter())
    }
}
