@testable import Plumb
import XCTest

/// videoconvert's copies as its two pads see them, without GStreamer: a buffer that leaves
/// as the one that entered was passed through; another one is a copy, and the first copy
/// names the conversion. `RecordingOutputTests` sees the same through a real branch.
final class PixelConversionTallyTests: XCTestCase {
    func testPassedThroughFramesAreNoCopies() {
        var tally = PixelConversionTally()
        for id in 1...3 as ClosedRange<UInt> {
            XCTAssertTrue(tally.entered(id), "no conversion seen yet: the input format is wanted")
            XCTAssertFalse(tally.left(id))
        }
        XCTAssertEqual(tally.copied, 0)
        XCTAssertNil(tally.conversion)
    }

    func testTheFirstCopyNamesTheConversionAndEveryCopyCounts() {
        var tally = PixelConversionTally()
        XCTAssertTrue(tally.entered(1))
        tally.input(format: "YUY2")
        XCTAssertTrue(tally.left(100), "a copy, the conversion still to be noted")
        tally.converted(to: "I420")
        XCTAssertEqual(tally.conversion, "YUY2 -> I420")
        XCTAssertFalse(tally.entered(2), "the conversion is known: no format wanted")
        XCTAssertFalse(tally.left(101), "a copy, nothing more to note")
        XCTAssertEqual(tally.copied, 2)
        XCTAssertEqual(tally.conversion, "YUY2 -> I420")
    }

    func testAnUnreadInputFormatIsAQuestionMark() {
        var tally = PixelConversionTally()
        _ = tally.entered(nil)
        XCTAssertTrue(tally.left(7))
        tally.converted(to: "NV12")
        XCTAssertEqual(tally.conversion, "? -> NV12")
    }
}
