import XCTest
@testable import PlumbService

final class QuantityParsingTests: XCTestCase {
    func testSizes() {
        XCTAssertEqual(parseByteCount("4096"), 4096)
        XCTAssertEqual(parseByteCount("0"), 0)
        XCTAssertEqual(parseByteCount("1K"), 1024)
        XCTAssertEqual(parseByteCount("500M"), 500 << 20)
        XCTAssertEqual(parseByteCount("500m"), 500 << 20)
        XCTAssertEqual(parseByteCount("500MiB"), 500 << 20)
        XCTAssertEqual(parseByteCount("2GB"), 2 << 30)
        XCTAssertEqual(parseByteCount("1.5G"), 3 << 29)
        XCTAssertEqual(parseByteCount("1T"), 1 << 40)
        for bad in ["", "M", "-1", "-1M", "1X", "1.2.3K", "1 K", " 1K", "iB", "1iB", "K5", "9999999T", "١٢", "nan", "inf", "."] {
            XCTAssertNil(parseByteCount(bad), bad)
        }
    }

    func testSizesReadBackToThemselves() {
        for bytes: Int64 in [0, 7, 1024, 1536 << 10, 512 << 20, 3 << 30, 5 << 40, 1_000_000] {
            XCTAssertEqual(parseByteCount(renderByteCount(bytes)), bytes, renderByteCount(bytes))
        }
        XCTAssertEqual(renderByteCount(512 << 20), "512M")
        XCTAssertEqual(renderByteCount(1536 << 10), "1536K")
    }

    func testAges() {
        XCTAssertEqual(parseAge("90"), .seconds(90))
        XCTAssertEqual(parseAge("90s"), .seconds(90))
        XCTAssertEqual(parseAge("5m"), .seconds(300))
        XCTAssertEqual(parseAge("12h"), .seconds(43_200))
        XCTAssertEqual(parseAge("7d"), .seconds(604_800))
        XCTAssertEqual(parseAge("1.5h"), .seconds(5400))
        XCTAssertEqual(parseAge("0.25s"), .milliseconds(250))
        for bad in ["", "d", "-1d", "1w", "1 d", "1dd", "1e3s", "99999999999d"] {
            XCTAssertNil(parseAge(bad), bad)
        }
    }

    func testAgesReadBackToThemselves() {
        for age: Duration in [.zero, .seconds(45), .seconds(5400), .seconds(604_800), .milliseconds(250)] {
            XCTAssertEqual(parseAge(renderAge(age)), age, renderAge(age))
        }
        XCTAssertEqual(renderAge(.seconds(604_800)), "7d")
        XCTAssertEqual(renderAge(.seconds(5400)), "90m")
    }
}
