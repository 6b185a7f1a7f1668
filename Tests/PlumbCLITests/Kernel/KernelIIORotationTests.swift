import Foundation
import PlumbTestSupport
import XCTest

/// `plumb rotation --accelerometer iio` on Debian's own hid-sensor-accel-3d driver, in the
/// kernel tests' VM (`Tests/Kernel/scenarios/50-iio-rotation.sh`): a HID sensor hub
/// accelerometer made through /dev/uhid (`Tests/Kernel/tools/hid_accel.py`) reports in
/// units of 10^-3 g, so the driver's scale is 0.00980665 m/s² a count and a reading that
/// ignored it would be 1000 "m/s²" (dropped as more than 4 g).
final class KernelIIORotationTests: XCTestCase {
    func output() throws -> URL { try KernelVM.shared.output(of: "50-iio-rotation") }

    /// The `KEY=VALUE` lines the scenario read from the driver's sysfs folder.
    static func sysfs(_ out: URL) throws -> [String: String] {
        let text = try String(contentsOf: out.appendingPathComponent("sysfs.txt"), encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// rotation.log's lines without the time column.
    static func events(_ out: URL) throws -> [String] {
        let text = try String(contentsOf: out.appendingPathComponent("rotation.log"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let trimmed = line.drop { $0 == " " }
            guard let space = trimmed.firstIndex(of: " "), Double(trimmed[..<space]) != nil else { return String(line) }
            return String(trimmed[space...].drop { $0 == " " })
        }
    }

    func testTheDriverBindsTheUHIDDeviceWithItsOwnScale() throws {
        let values = try Self.sysfs(try output())
        XCTAssertEqual(values["name"], "accel_3d", "\(values)")
        // hid_sensor_format_scale: 9.80665 m/s² per g times the report's unit exponent (-3).
        let scale = try XCTUnwrap(values["in_accel_scale"].flatMap(Double.init), "\(values)")
        XCTAssertEqual(scale, 9.80665e-3, accuracy: 1e-9)
        XCTAssertEqual(values["in_accel_offset"].flatMap(Double.init), 0)
        // Upright: the HID device reports (0, 1 g, 0) in counts of 10^-3 g.
        XCTAssertEqual(values["in_accel_x_raw"], "0")
        XCTAssertEqual(values["in_accel_y_raw"], "1000")
        XCTAssertEqual(values["in_accel_z_raw"], "0")
    }

    func testRotationFollowsEveryTurnFromTheDriver() throws {
        let out = try output()
        let events = try Self.events(out)
        let log = events.joined(separator: "\n")
        XCTAssertTrue(log.contains("accelerometer iio,"), log)
        let angles = events.filter { $0.hasPrefix("angles: ") }
        // Turned clockwise, upside down, counter-clockwise, upright; then back from unplugging, turned clockwise.
        XCTAssertEqual(angles, [90, 180, 270, 0, 90].map { "angles: capture \($0)°, preview \($0)°" }, log)
        // The samples are the driver's counts times its scale: gravity, 9.81 m/s².
        let samples = events.filter { $0.hasPrefix("sample ") }
        XCTAssertGreaterThan(samples.count, 5, log)
        for expected in ["x=0 y=9.81 z=0", "x=-9.81 y=0 z=0", "x=0 y=-9.81 z=0", "x=9.81 y=0 z=0"] {
            XCTAssertTrue(samples.contains { $0.hasSuffix(expected) }, "no sample \(expected):\n\(log)")
        }
        // Each axis is read from its own file, so a turn may be seen half-way once (a zero vector),
        // but never as more than 4 g.
        XCTAssertFalse(log.contains("more than 4 g"), log)
        XCTAssertTrue(log.contains("exit=0"), log)
    }

    func testTheDeviceGoingAwayAndComingBackIsSaidAndFollowed() throws {
        let events = try Self.events(try output())
        let log = events.joined(separator: "\n")
        let gone = try XCTUnwrap(events.firstIndex { $0.hasPrefix("sensor unavailable: ") }, log)
        XCTAssertTrue(events[gone].hasPrefix("sensor unavailable: accel_3d went away: "), events[gone])
        let back = try XCTUnwrap(events[gone...].firstIndex { $0.hasPrefix("sensor available: accel_3d at /sys/bus/iio/devices/iio:device") },
                                 "never available again:\n\(log)")
        // While gone the last angle (upright) held; the device came back turned clockwise.
        XCTAssertFalse(events[gone..<back].contains { $0.hasPrefix("angles: ") }, log)
        XCTAssertEqual(events[back...].first { $0.hasPrefix("angles: ") }, "angles: capture 90°, preview 90°", log)
        let summary = try XCTUnwrap(events.last { $0.hasPrefix("samples ") }, log)
        // (Its last word on the sensor is "ended" or "available", as the stop and the last poll race.)
        XCTAssertTrue(summary.contains("final: capture 90"), summary)
    }
}
