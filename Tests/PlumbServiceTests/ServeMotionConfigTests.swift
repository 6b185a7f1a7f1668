import Foundation
import Plumb
@testable import PlumbService
import XCTest

/// `[motion]`: its keys parse, render and refuse bad values naming the group, key and line.
final class ServeMotionConfigTests: XCTestCase {
    func testMotionKeysParseAndRoundTrip() throws {
        let config = try ServeConfig.parse(text: """
            [motion]
            enabled = true
            rate = 8
            sensitivity = 0.75
            min-area = 0.02
            min-frames = 3
            quiet-seconds = 4.5
            mask = 0,0,1,0.1; 0.8,0.8,0.2,0.2
            event = false
            """)
        XCTAssertTrue(config.motion.enabled)
        XCTAssertFalse(config.motion.event)
        let options = config.motion.options
        XCTAssertEqual(options.rate, 8)
        XCTAssertEqual(options.sensitivity, 0.75)
        XCTAssertEqual(options.minArea, 0.02)
        XCTAssertEqual(options.minFrames, 3)
        XCTAssertEqual(options.quietSeconds, 4.5)
        XCTAssertEqual(options.masks, [NormalizedRect(x: 0, y: 0, width: 1, height: 0.1),
                                       NormalizedRect(x: 0.8, y: 0.8, width: 0.2, height: 0.2)])
        XCTAssertNoThrow(try options.validate(), "every value the file takes is one the detector takes")
        XCTAssertEqual(try ServeConfig.parse(text: config.iniText()), config)
        XCTAssertTrue(config.iniText().contains("mask=0,0,1,0.1;0.8,0.8,0.2,0.2"), config.iniText())
    }

    func testDefaultsAreOffWithClipsOnceEnabled() throws {
        let defaults = ServeConfig().motion
        XCTAssertFalse(defaults.enabled, "off unless asked")
        XCTAssertTrue(defaults.event, "once enabled, motion records event clips unless told not to")
        XCTAssertEqual(defaults.mask, [])
        XCTAssertEqual(defaults.options, MotionOptions(), "the daemon's defaults are the detector's")
        let enabled = try ServeConfig().applying(overrides: ["motion.enabled": "true"])
        XCTAssertTrue(enabled.motion.enabled)
        XCTAssertTrue(enabled.motion.event)
    }

    func testBadMotionValuesNameTheGroupKeyAndLine() {
        let cases = [("enabled", "sometimes", "true or false"), ("rate", "0", "from 1 to 30"), ("rate", "31", "from 1 to 30"),
                     ("sensitivity", "1.5", "from 0 to 1"), ("sensitivity", "high", "from 0 to 1"),
                     ("min-area", "0", "above 0 and below 0.5"), ("min-area", "0.5", "above 0 and below 0.5"),
                     ("min-frames", "0", "from 1 to 100"), ("quiet-seconds", "-1", "from 0 to 3600"),
                     ("mask", "0.5,0.5,0.6,0.6", "x,y,width,height"), ("mask", "0,0,1", "x,y,width,height"),
                     ("mask", "0,0,1,0.1;nothing", "separated by ;"), ("event", "2", "true or false")]
        for (key, value, accepted) in cases {
            XCTAssertThrowsError(try ServeConfig.parse(text: "# motion\n\n[motion]\n\(key) = \(value)\n")) { error in
                guard let e = error as? ConfigError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.group, "motion", "\(key) = \(value)")
                XCTAssertEqual(e.key, key)
                XCTAssertEqual(e.line, 4, "\(key) = \(value)")
                XCTAssertTrue(e.description.contains("[motion] \(key)") && e.description.contains(accepted), e.description)
            }
        }
        XCTAssertThrowsError(try ServeConfig().applying(overrides: ["motion.rate": "fast"])) { error in
            XCTAssertTrue("\(error)".contains("motion.rate=fast: expected a whole number"), "\(error)")
        }
    }
}
