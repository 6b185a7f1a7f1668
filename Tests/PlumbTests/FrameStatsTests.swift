@testable import Plumb
import PlumbTestSupport
import XCTest

final class FrameStatsTests: XCTestCase {
    func testGapsAreTheLargestSteps() {
        var stats = FrameStats()
        let interval: UInt64 = 33_333_333
        for (i, n) in [0, 1, 2, 4, 5].enumerated() {  // frame 3 is missing
            stats.add(timestamp: UInt64(n) * interval, arrival: UInt64(i) * 40_000_000 + (i == 3 ? 60_000_000 : 0))
        }
        XCTAssertEqual(stats.count, 5)
        XCTAssertEqual(stats.largestTimestampGap, 2 * interval)
        XCTAssertEqual(stats.largestArrivalGap, 100_000_000)
        XCTAssertEqual(stats.firstTimestamp, 0)
        XCTAssertEqual(stats.lastTimestamp, 5 * interval)
    }
}
