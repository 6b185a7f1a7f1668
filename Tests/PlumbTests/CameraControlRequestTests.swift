import Foundation
import GStreamer
@testable import Plumb
import XCTest

/// Plain names, driver names and validation on stand-in listings kept in Tests/Fixtures/controls
/// (`v4l2-ctl --list-ctrls-menus` texts): a C920-style UVC webcam, and a sensor with a flash
/// LED, ISO, exposure bias and one control of every type (vivid's test-control kinds).
final class CameraControlRequestTests: XCTestCase {
    static func listing(_ name: String) throws -> CameraControlListing {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/controls/\(name).txt")
        return CameraControlListing(parsing: try String(contentsOf: url, encoding: .utf8))
    }

    var webcam: CameraControlListing { get throws { try Self.listing("uvc-c920-style") } }
    var sensor: CameraControlListing { get throws { try Self.listing("sensor-with-flash-and-test-types") } }

    private func resolve(_ items: [String], _ listing: CameraControlListing) throws -> [(String, V4L2ControlValue)] {
        try CameraControlRequest(parsing: items).resolve(against: listing.controls).changes.map { ($0.0.name, $0.1) }
    }

    private func error(_ items: [String], _ listing: CameraControlListing) throws -> String {
        do {
            _ = try CameraControlRequest(parsing: items).resolve(against: listing.controls)
        } catch {
            return error.description
        }
        XCTFail("\(items) was accepted")
        return ""
    }

    func testListingParsesTypesRangesMenusAndFlags() throws {
        let sensor = try sensor
        XCTAssertEqual(sensor.controls.count, 22)
        let byName = Dictionary(uniqueKeysWithValues: sensor.controls.map { ($0.name, $0) })
        XCTAssertEqual(byName["gain"]?.flags, [.inactive, .volatile])
        XCTAssertEqual(byName["button"]?.kind, .button)
        XCTAssertEqual(byName["integer_64_bits"]?.minimum, .min)
        XCTAssertEqual(byName["bitmask"]?.maximum, 0x8000_250f)
        XCTAssertEqual(byName["integer_menu"]?.menu.map(\.value), [1, 2, -1, 8, 10, 13, 20, 40])
        XCTAssertEqual(byName["auto_exposure"]?.menu.map(\.label), ["Auto Mode", "Manual Mode", "Shutter Priority Mode", "Aperture Priority Mode"])
        XCTAssertEqual(sensor.values[0x0098_f905], .string("xx"))
        XCTAssertEqual(sensor.values[0x0098_f906], .integer(0x8000_0800))
        let webcam = try webcam
        XCTAssertEqual(webcam.controls.first { $0.id == CameraControlID.exposureAuto }?.menu.map(\.index), [1, 3])
        XCTAssertEqual(webcam.controls.first { $0.id == CameraControlID.focusAbsolute }?.step, 5)
    }

    func testDriverNamesAreV4L2CtlsLowerCaseWithUnderscores() {
        XCTAssertEqual(V4L2ControlInfo.variableName("White Balance, Automatic"), "white_balance_automatic")
        XCTAssertEqual(V4L2ControlInfo.variableName("Exposure Time, Absolute"), "exposure_time_absolute")
        XCTAssertEqual(V4L2ControlInfo.variableName("Integer 64 Bits"), "integer_64_bits")
    }

    func testPlainNamesMapToStandardIDsOnAWebcam() throws {
        let changes = try resolve(["exposure=manual", "exposure-time=0.01", "white-balance=manual",
                                   "white-balance-temperature=5000", "focus=manual", "focus-distance=40",
                                   "power-line=50", "brightness=100", "zoom=150"], webcam)
        // Modes first, so the manual values are not inactive when they arrive.
        XCTAssertEqual(changes.map(\.0), ["auto_exposure", "white_balance_automatic", "focus_automatic_continuous",
                                          "exposure_time_absolute", "white_balance_temperature", "focus_absolute",
                                          "power_line_frequency", "brightness", "zoom_absolute"])
        XCTAssertEqual(changes.map(\.1), [.integer(1), .integer(0), .integer(0), .integer(100), .integer(5000),
                                          .integer(40), .integer(1), .integer(100), .integer(150)])
    }

    func testAutoExposureOnAUVCCameraIsAperturePriority() throws {
        XCTAssertEqual(try resolve(["exposure=auto"], webcam).map(\.1), [.integer(3)])
        XCTAssertEqual(try resolve(["exposure=auto"], sensor).map(\.1), [.integer(0)])
        XCTAssertEqual(try error(["exposure=shutter-priority"], webcam),
                       "exposure=shutter-priority is refused: accepted one of manual, aperture-priority")
    }

    func testSensorOnlyNames() throws {
        XCTAssertEqual(try resolve(["torch=on"], sensor).map(\.1), [.integer(2)])
        XCTAssertEqual(try resolve(["torch=25"], sensor).map(\.0), ["led_mode", "torch_intensity"])
        XCTAssertEqual(try resolve(["iso=auto"], sensor).map(\.1), [.integer(1)])
        XCTAssertEqual(try resolve(["iso=manual", "iso=400"], sensor).map(\.1), [.integer(0), .integer(2)])
        XCTAssertEqual(try resolve(["exposure-bias=-1"], sensor).map(\.1), [.integer(1)]) // the entry of -1000 (0.001 EV)
        XCTAssertEqual(try resolve(["gain=manual", "gain=20"], sensor).map(\.1), [.integer(0), .integer(20)])
        XCTAssertEqual(try error(["torch=on"], webcam), "this camera has no torch control (flash_led_mode)")
    }

    func testEveryTypeUnderItsDriverName() throws {
        let changes = try resolve(["button=press", "boolean=off", "integer-32-bits=-7", "integer_64_bits=9000000000",
                                   "menu=menu-item-2", "string=abcd", "bitmask=0x2501", "integer_menu=13"], sensor)
        XCTAssertEqual(changes.map(\.1), [.integer(1), .integer(0), .integer(-7), .integer(9_000_000_000), .integer(2),
                                          .string("abcd"), .integer(0x2501), .integer(6)])
    }

    func testRefusalsSayWhatIsAccepted() throws {
        XCTAssertEqual(try error(["brightness=300"], webcam), "brightness=300 is refused: accepted 0 to 255 in steps of 1")
        XCTAssertEqual(try error(["focus_absolute=42"], webcam).prefix(25), "focus_absolute=42 is refu")
        XCTAssertEqual(try error(["exposure=manual", "exposure-time=1"], webcam),
                       "exposure-time=1 is refused: accepted 0.0003 to 0.2047 s in steps of 0.0001 s")
        XCTAssertEqual(try error(["exposure-time=0.01"], webcam),
                       "exposure-time cannot be set: inactive while exposure is auto: set exposure=manual first")
        XCTAssertEqual(try error(["white-balance-temperature=5000"], webcam),
                       "white-balance-temperature cannot be set: inactive while white balance is auto: set white-balance=manual first")
        XCTAssertEqual(try error(["power-line=70"], webcam), "power-line=70 is refused: accepted one of off, 50, 60")
        XCTAssertEqual(try error(["menu=item-9"], sensor),
                       "menu=item-9 is refused: accepted one of menu-item-1 (1), menu-item-2 (2), menu-item-3 (3), menu-item-4 (4)")
        XCTAssertEqual(try error(["integer_menu=3"], sensor), "integer_menu=3 is refused: accepted one of 1, 2, -1, 8, 10, 13, 20, 40")
        XCTAssertEqual(try error(["string=a"], sensor), "string=a is refused: accepted text of 2 to 4 bytes")
        XCTAssertEqual(try error(["bitmask=0x10"], sensor), "bitmask=0x10 is refused: accepted bits within 0x8000250f")
        XCTAssertEqual(try error(["exposure-bias=0.5"], sensor), "exposure-bias=0.5 is refused: accepted EV, one of -2, -1, 0, 1, 2")
        XCTAssertTrue(try error(["shutter=1"], webcam).hasPrefix("unknown control 'shutter'; this camera has: exposure, exposure-time, gain, focus,"))
        XCTAssertEqual(try error(["brightness"], webcam), "control 'brightness' is not NAME=VALUE")
    }

    func testSkippingWhatANewCameraLacks() throws {
        let request = try CameraControlRequest(parsingList: "torch=on, brightness=10, pan_absolute=3600")
        let resolved = try request.resolve(against: try sensor.controls, skipMissing: true)
        XCTAssertEqual(resolved.missing, ["pan_absolute"])
        XCTAssertEqual(resolved.changes.map(\.0.name), ["led_mode", "brightness"])
        XCTAssertThrowsError(try CameraControlRequest(parsingList: "brightness=999").resolve(against: try sensor.controls, skipMissing: true))
    }

    func testLockFreezesAutoModesAtTheirValuesAndReleaseRestores() throws {
        let webcam = try webcam
        let lock = CameraControlLock(controls: webcam.controls, values: webcam.values)
        XCTAssertEqual(lock.freeze.map(\.0.name), ["auto_exposure", "exposure_time_absolute", "focus_automatic_continuous",
                                                   "focus_absolute", "white_balance_automatic", "white_balance_temperature"])
        XCTAssertEqual(lock.freeze.map(\.1), [.integer(1), .integer(333), .integer(0), .integer(35), .integer(0), .integer(4460)])
        XCTAssertEqual(lock.release.map(\.0.name), ["auto_exposure", "focus_automatic_continuous", "white_balance_automatic"])
        XCTAssertEqual(lock.release.map(\.1), [.integer(3), .integer(1), .integer(1)])
        // Already manual: nothing to freeze.
        var manual = webcam
        manual.values[CameraControlID.exposureAuto] = .integer(1)
        XCTAssertFalse(CameraControlLock(controls: manual.controls, values: manual.values).freeze.contains { $0.0.id == CameraControlID.exposureAuto })
    }

    /// vivid's listing as recorded in the kernel VM (Debian's kernel): every control type.
    func testTheRecordedVividListing() throws {
        let vivid = try Self.listing("vivid")
        let kinds = Set(vivid.controls.map(\.kind.word))
        XCTAssertTrue(kinds.isSuperset(of: ["int", "int64", "bool", "menu", "intmenu", "button", "str", "bitmask"]), "\(kinds)")
        XCTAssertEqual(try error(["gain=20"], vivid), "gain cannot be set: inactive while gain is auto: set gain=manual first")
        XCTAssertEqual(try resolve(["gain=manual", "gain=20"], vivid).map(\.1), [.integer(0), .integer(20)])
        XCTAssertEqual(try error(["exposure=manual"], vivid), "this camera has no exposure control (exposure_auto / auto_exposure)")
        XCTAssertEqual(try resolve(["horizontal-flip=on", "menu=Menu Item 4"], vivid).map(\.1), [.integer(1), .integer(4)])
        XCTAssertEqual(try error(["menu=2"], vivid),
                       "menu=2 is refused: accepted one of menu-item-1 (1), menu-item-3 (3), menu-item-4 (4)")
    }
}
