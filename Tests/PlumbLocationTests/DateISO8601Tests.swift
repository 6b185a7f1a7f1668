import Foundation
@testable import PlumbLocation
import XCTest

/// `taken_at` and the events' `time`: written without Foundation (issue 26), read back as
/// Foundation's ISO8601DateFormatter wrote them, rounded to the millisecond.
final class DateISO8601Tests: XCTestCase {
    func testMillisecondsAsISO8601DateFormatterWroteThem() {
        let foundation = ISO8601DateFormatter()
        foundation.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for seconds in [0, 1_796_421_729.8147, 1_796_421_729.9996, 1_700_000_000.0005, 951_782_400.25, 4_102_444_799.999] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(date.iso8601Milliseconds, foundation.string(from: date), "\(seconds)")
        }
        XCTAssertEqual(Date(timeIntervalSince1970: 1_796_421_729.9996).iso8601Milliseconds, "2026-12-04T22:02:10.000Z",
                       "rounded up into the next second")
    }

    func testGPSDTimesParse() {
        XCTAssertEqual(GPSDMessage.parseTime("2019-03-14T12:31:04.000Z")?.timeIntervalSince1970, 1_552_566_664)
        XCTAssertEqual(GPSDMessage.parseTime("2019-03-14T12:31:04.250Z")?.timeIntervalSince1970, 1_552_566_664.25)
        XCTAssertEqual(GPSDMessage.parseTime("2019-03-14T12:31:04Z")?.timeIntervalSince1970, 1_552_566_664)
        XCTAssertNil(GPSDMessage.parseTime("yesterday"))
    }
}
