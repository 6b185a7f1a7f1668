import Foundation
import Plumb
@testable import PlumbService
import XCTest

/// `[scan]`: its keys parse, render and refuse bad values naming the group and key.
final class ServeScanConfigTests: XCTestCase {
    func testScanKeysParseAndRoundTrip() throws {
        let config = try ServeConfig.parse(text: """
            [scan]
            enabled = true
            types = ean13, QR
            region = 0.25,0,0.5,1
            rate = 5
            width = 320
            forget-seconds = 2.5
            photo = true
            """)
        XCTAssertTrue(config.scan.enabled)
        XCTAssertEqual(config.scan.types, [.qr, .ean13])
        XCTAssertEqual(config.scan.region, NormalizedRect(x: 0.25, y: 0, width: 0.5, height: 1))
        XCTAssertEqual(config.scan.rate, 5)
        XCTAssertTrue(config.scan.photo)
        XCTAssertEqual(config.scan.options.rate, 5)
        XCTAssertEqual(config.scan.options.width, 320)
        XCTAssertEqual(config.scan.options.forgetAfter, .milliseconds(2500))
        XCTAssertEqual(try ServeConfig.parse(text: config.iniText()), config)
        XCTAssertTrue(config.iniText().contains("types=qr,ean13"), config.iniText())
        XCTAssertFalse(ServeConfig().scan.enabled, "off unless asked")
    }

    func testBadScanValuesNameTheGroupAndKey() {
        for (key, value) in [("types", "qr,aztec"), ("region", "0.5,0.5,0.6,0.6"), ("rate", "0"), ("photo", "maybe"), ("width", "10"), ("forget-seconds", "-1")] {
            XCTAssertThrowsError(try ServeConfig.parse(text: "[scan]\n\(key) = \(value)\n")) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("[scan] \(key)"), text)
                XCTAssertTrue(text.contains(value), text)
            }
        }
    }
}
