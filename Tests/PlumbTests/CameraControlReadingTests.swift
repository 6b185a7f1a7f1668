import Foundation
import GStreamer
@testable import Plumb
import XCTest

/// The exposure facts and the controls in force read from stand-in listings
/// (Tests/Fixtures/controls): a control counts while active or volatile; an inactive one's
/// stale value never becomes a fact.
final class CameraControlReadingTests: XCTestCase {
    static func reading(_ name: String, _ edits: [(String, String)] = []) throws -> CameraControlReading {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/controls/\(name).txt")
        var text = try String(contentsOf: url, encoding: .utf8)
        for (old, new) in edits {
            XCTAssertTrue(text.contains(old), "\(name) has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return CameraControlReading(CameraControlListing(parsing: text))
    }

    /// The C920-style webcam switched to manual exposure (1/30 s) and manual white balance.
    static func manualWebcam() throws -> CameraControlReading {
        try reading("uvc-c920-style", [
            ("value=3 (Aperture Priority Mode)", "value=1 (Manual Mode)"),
            ("default=250 value=333 flags=inactive", "default=250 value=333"),
            ("white_balance_automatic 0x0098090c (bool)   : default=1 value=1", "white_balance_automatic 0x0098090c (bool)   : default=1 value=0"),
            ("value=4460 flags=inactive", "value=4460"),
        ])
    }

    /// The sensor in manual exposure (10 ms) and manual ISO 400.
    static func manualSensor() throws -> CameraControlReading {
        try reading("sensor-with-flash-and-test-types", [
            ("default=0 value=0 (Auto Mode)", "default=0 value=1 (Manual Mode)"),
            ("default=100 value=100 flags=inactive", "default=100 value=100"),
            ("value=1 (200 0xc8) flags=inactive", "value=2 (400 0x190)"),
            ("default=1 value=1 (Auto)", "default=1 value=0 (Manual)"),
        ])
    }

    func testAWebcamUnderAutoExposureReportsNoStaleExposureTime() throws {
        let webcam = try Self.reading("uvc-c920-style")
        XCTAssertEqual(webcam.exposureMode, "aperture-priority")
        // exposure_time_absolute is inactive (not volatile) under auto: 333 is a stale value.
        XCTAssertNil(webcam.exposureTime)
        XCTAssertEqual(webcam.whiteBalance, "auto")
        XCTAssertEqual(webcam.gain, 31)
        XCTAssertNil(webcam.iso)
        let inForce = webcam.inForce
        XCTAssertNil(inForce["exposure-time"])
        XCTAssertNil(inForce["white-balance-temperature"])
        XCTAssertNil(inForce["focus-distance"])
        XCTAssertEqual(inForce["exposure"], .word("aperture-priority"))
        XCTAssertEqual(inForce["focus"], .word("continuous"))
        XCTAssertEqual(inForce["power-line"], .word("60"))
        XCTAssertEqual(inForce["pan_absolute"], .integer(0))
    }

    func testManualExposureGivesSecondsAndTheISOMenusNumber() throws {
        let webcam = try Self.manualWebcam()
        XCTAssertEqual(webcam.exposureMode, "manual")
        XCTAssertEqual(webcam.exposureTimeUnits, 333)
        XCTAssertEqual(try XCTUnwrap(webcam.exposureTime), 0.0333, accuracy: 1e-9)
        XCTAssertEqual(webcam.whiteBalance, "manual")
        XCTAssertEqual(webcam.inForce["white-balance-temperature"], .integer(4460))
        let sensor = try Self.manualSensor()
        XCTAssertEqual(sensor.exposureTime, 0.01)
        // The integer menu's entry (index 2), not its index.
        XCTAssertEqual(sensor.iso, 400)
        XCTAssertEqual(sensor.inForce["iso"], .integer(400))
        XCTAssertEqual(sensor.inForce["exposure-bias"], .number(0))
        XCTAssertNil(sensor.whiteBalance)
        // ISO under auto: the menu's value is not the one in use.
        XCTAssertNil(try Self.reading("sensor-with-flash-and-test-types").iso)
    }

    /// vivid's gain is volatile under auto gain: the driver's value is the one in force.
    func testAVolatileGainUnderAutoGainIsInForce() throws {
        let vivid = try Self.reading("vivid")
        XCTAssertEqual(vivid.gain, 77)
        XCTAssertNil(vivid.exposureMode)
        XCTAssertNil(vivid.exposureTime)
        XCTAssertNil(vivid.whiteBalance)
        XCTAssertNil(vivid.iso)
        let inForce = vivid.inForce
        XCTAssertEqual(inForce["gain"], .integer(77))
        XCTAssertEqual(inForce["gain_automatic"], .integer(1))
        XCTAssertEqual(inForce["menu"], .word("menu-item-3"))
        XCTAssertEqual(inForce["integer_menu"], .integer(5))
        XCTAssertEqual(inForce["test_pattern"], .word("75-colorbar"))
        XCTAssertEqual(inForce["brightness"], .integer(128))
        XCTAssertNil(inForce["button"])
    }

    /// Every fact is a value `--control` takes back.
    func testTheControlsInForceAreAcceptedAsControlSettings() throws {
        for reading in [try Self.reading("uvc-c920-style"), try Self.manualWebcam(), try Self.manualSensor()] {
            // (The sensor listing's bitmask value has a bit outside its own mask.)
            let items = reading.inForce.filter { $0.key != "bitmask" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            XCTAssertNoThrow(try CameraControlRequest(parsing: items).resolve(against: reading.controls), "\(items)")
        }
    }

    func testTheFactsAreCodedAsNumbersAndWords() throws {
        let facts: [String: CameraControlFact] = ["exposure": .word("manual"), "exposure-time": .number(0.0333), "gain": .integer(31)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(facts), as: UTF8.self)
        XCTAssertEqual(json, #"{"exposure":"manual","exposure-time":0.0333,"gain":31}"#)
        XCTAssertEqual(try JSONDecoder().decode([String: CameraControlFact].self, from: Data(json.utf8)), facts)
    }
}
