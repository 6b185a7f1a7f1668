@testable import Plumb
import XCTest

/// The one even-size check for 4:2:0 encoders (`plumb record --size`, `[camera] size`, a
/// preview canvas all use it).
final class VideoSizeTests: XCTestCase {
    func testOnlyPositiveEvenSidesFit420() {
        for (width, height) in [(2, 2), (320, 240), (1920, 1080), (16, 8192)] {
            let size = VideoSize(width: width, height: height)
            XCTAssertTrue(size.fits420, "\(size)")
            XCTAssertNil(size.recordingProblem, "\(size)")
        }
        for (width, height) in [(321, 240), (320, 241), (1, 1), (0, 240), (320, 0), (-2, 240)] {
            let size = VideoSize(width: width, height: height)
            XCTAssertFalse(size.fits420, "\(size)")
            XCTAssertEqual(size.recordingProblem,
                           "\(size): a recording needs even width and height (H.264/H.265 use 4:2:0 chroma)")
        }
    }
}
