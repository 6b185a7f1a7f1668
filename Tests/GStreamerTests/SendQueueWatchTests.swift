@testable import GStreamerRTSP
import XCTest

/// The stall rule on samples of a connection's send queue.
final class SendQueueWatchTests: XCTestCase {
    let t0 = ContinuousClock.now

    private func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    func testAConsumerThatTakesNothingIsStalledOnceDataWaitedTheLimit() {
        var watch = SendQueueWatch(limit: .seconds(2))
        XCTAssertNil(watch.sample(acked: 1000, queued: 500, at: at(0)))
        XCTAssertNil(watch.sample(acked: 1000, queued: 9000, at: at(1000)))
        XCTAssertNil(watch.sample(acked: 1000, queued: 20000, at: at(1900)), "not yet: 1.9 s")
        XCTAssertEqual(watch.sample(acked: 1000, queued: 25000, at: at(2100)),
                       SendQueueWatch.Stall(waited: .milliseconds(2100), queued: 25000, taken: 0))
    }

    func testAConsumerThatKeepsTakingIsNeverStalledThoughDataIsAlwaysInFlight() {
        // A slow link: 40 kB always in flight, 100 kB/s taken.
        var watch = SendQueueWatch(limit: .seconds(2))
        for i in 0..<100 {
            XCTAssertNil(watch.sample(acked: UInt64(i) * 10_000, queued: 40_000, at: at(i * 100)), "sample \(i)")
        }
    }

    func testAConsumerFallingMoreThanTheLimitBehindIsStalled() {
        // It takes 10 kB/s while 30 kB/s are sent: the queue outgrows what it takes per 2 s.
        var watch = SendQueueWatch(limit: .seconds(2))
        var stall: SendQueueWatch.Stall?
        var second = 0
        while stall == nil && second < 60 {
            second += 1
            stall = watch.sample(acked: UInt64(second) * 10_000, queued: second * 20_000, at: at(second * 1000))
        }
        XCTAssertEqual(second, 3, "60 kB waiting against 20 kB taken in the last 2 s")
        XCTAssertEqual(stall?.taken, 20_000)
    }

    func testAnEmptyQueueStartsTheClockAgain() {
        var watch = SendQueueWatch(limit: .seconds(2))
        XCTAssertNil(watch.sample(acked: 0, queued: 100, at: at(0)))
        XCTAssertNil(watch.sample(acked: 0, queued: 0, at: at(1500)), "idle: nothing waits")
        XCTAssertNil(watch.sample(acked: 0, queued: 100, at: at(2500)), "waited 0 s since it emptied")
        XCTAssertNil(watch.sample(acked: 0, queued: 100, at: at(4000)))
        XCTAssertNotNil(watch.sample(acked: 0, queued: 100, at: at(4600)))
        // An idle connection is never judged.
        var idle = SendQueueWatch(limit: .seconds(1))
        for i in 0..<50 { XCTAssertNil(idle.sample(acked: 42, queued: 0, at: at(i * 500))) }
    }
}
