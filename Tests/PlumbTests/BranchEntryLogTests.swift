import GStreamer
@testable import Plumb
import XCTest

/// What the tee gave a recording's branch, without GStreamer: the counts at a frame while it
/// is recent, and the counts kept at the end of the recording's length.
final class BranchEntryLogTests: XCTestCase {
    static let ms: ClockTime = 1_000_000

    func testTheCountsAtTheLengthEndAreKeptOnce() {
        var log = BranchEntryLog(rate: FrameRate(10))  // a frame every 100 ms
        for n in 0..<5 { log.add(offset: nil, time: ClockTime(n) * 100 * Self.ms, lengthEnd: 300 * Self.ms) }
        XCTAssertEqual(log.entered, 5)
        // Before the frame at 300 ms (within half a frame of the end): 3 had entered.
        XCTAssertEqual(log.atLengthEnd?.entered, 3)
        XCTAssertEqual(log.atLengthEnd?.lost, 0)
        // The frame at 200 ms: the 3rd in, while it is recent.
        XCTAssertEqual(log.counts(at: 200 * Self.ms)?.entered, 3)
    }

    /// The first frame within half a frame of the end marks it: here the one at 400 ms
    /// (the end at 450 ms); the counts are those before it, kept when later frames come.
    func testTheFirstFrameNearTheEndMarksIt() {
        var log = BranchEntryLog(rate: FrameRate(10))
        for t in [0, 100, 400, 500] as [ClockTime] { log.add(offset: nil, time: t * Self.ms, lengthEnd: 450 * Self.ms) }
        XCTAssertEqual(log.atLengthEnd?.entered, 2)
        XCTAssertEqual(log.entered, 4)
        XCTAssertEqual(log.lost, 2, "200 and 300 ms never came")
    }

    func testNoLengthNoEndCounts() {
        var log = BranchEntryLog(rate: FrameRate(10))
        for n in 0..<5 { log.add(offset: nil, time: ClockTime(n) * 100 * Self.ms) }
        XCTAssertNil(log.atLengthEnd)
    }
}
