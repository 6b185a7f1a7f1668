import Foundation
import PlumbRotation
import PlumbTestSupport
import XCTest

final class IIOAccelerometerTests: XCTestCase {
    /// device0: a pressure sensor (not an accelerometer); device1: "lis3dh" with a shared scale,
    /// per-axis offsets and a mount matrix turning the chip 90°; device2: "mma8452" with per-axis
    /// scales and the older `mount_matrix` name.
    private func makeTree() throws -> FakeSysfs {
        let fake = FakeSysfs(root: try temporaryDirectory(self, "sysfs"))
        try fake.write(0, "name", "bmp280")
        try fake.write(0, "in_pressure_raw", "101325")
        try fake.write(1, "name", "lis3dh")
        try fake.write(1, "in_accel_scale", "0.009806650")  // 1 mg per count, in m/s²
        try fake.write(1, "in_accel_x_offset", "0")
        try fake.write(1, "in_accel_y_offset", "-20")
        try fake.write(1, "in_accel_z_offset", "0")
        // The chip's y axis points along the device's -x, its x along the device's y.
        try fake.write(1, "in_accel_mount_matrix", "0, -1, 0; 1, 0, 0; 0, 0, 1")
        try fake.raw(1, "1000", "20", "0")  // chip +x = 1 g -> device (0, +g, 0): upright
        try fake.write(2, "name", "mma8452")
        try fake.write(2, "in_accel_x_scale", "0.5")
        try fake.write(2, "in_accel_y_scale", "0.25")
        try fake.write(2, "in_accel_z_scale", "1")
        try fake.write(2, "mount_matrix", "-1, 0, 0; 0, -1, 0; 0, 0, 1")
        try fake.raw(2, "0", "39.2", "0")
        return fake
    }

    func testFindsTheDeviceByNameOrPathAndReadsItThroughScaleOffsetAndMountMatrix() throws {
        let fake = try makeTree()
        let root = fake.root.path
        let first = try IIOAccelerometer(sysfsRoot: root).locate()
        XCTAssertEqual(first.name, "lis3dh", "iio:device0 is not an accelerometer, so the first one is device1")
        XCTAssertEqual(first.scale, [0.00980665, 0.00980665, 0.00980665])
        XCTAssertEqual(first.offset, [0, -20, 0])
        XCTAssertEqual(first.mountMatrix, MountMatrix(rows: [[0, -1, 0], [1, 0, 0], [0, 0, 1]]))
        guard case let .sample(x, y, z) = first.read() else { return XCTFail("no sample") }
        XCTAssertEqual(x, 0, accuracy: 1e-9)
        XCTAssertEqual(y, 9.80665, accuracy: 1e-9)
        XCTAssertEqual(z, 0, accuracy: 1e-9)

        let named = try IIOAccelerometer(device: .named("mma8452"), sysfsRoot: root).locate()
        XCTAssertEqual(named.scale, [0.5, 0.25, 1])
        XCTAssertEqual(named.mountMatrix.rows, [[-1, 0, 0], [0, -1, 0], [0, 0, 1]])
        guard case let .sample(x2, y2, _) = named.read() else { return XCTFail("no sample") }
        XCTAssertEqual(x2, 0)
        XCTAssertEqual(y2, -9.8, "39.2 counts × 0.25, turned 180° by the mount matrix")

        XCTAssertEqual(try IIOAccelerometer(device: .path("iio:device2"), sysfsRoot: root).locate().name, "mma8452")
        XCTAssertEqual(try IIOAccelerometer(device: .path(fake.device(1).path), sysfsRoot: "/nonexistent").locate().name,
                       "lis3dh")
    }

    func testLocatingErrorsSayWhatWasFound() throws {
        let fake = try makeTree()
        let root = fake.root.path
        XCTAssertThrowsError(try IIOAccelerometer(device: .named("bma250"), sysfsRoot: root).locate()) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("no IIO device named \"bma250\""), message)
            XCTAssertTrue(message.contains("iio:device0 (bmp280), iio:device1 (lis3dh), iio:device2 (mma8452)"), message)
        }
        XCTAssertThrowsError(try IIOAccelerometer(device: .named("bmp280"), sysfsRoot: root).locate()) { error in
            XCTAssertTrue("\(error)".contains("has no in_accel_x_raw: it is not an accelerometer"), "\(error)")
        }
        XCTAssertThrowsError(try IIOAccelerometer(sysfsRoot: root + "/empty").locate()) { error in
            XCTAssertTrue("\(error)".contains("no IIO accelerometer") && "\(error)".contains("no IIO devices at all"))
        }
        try fake.write(2, "in_accel_y_scale", "fast")
        XCTAssertThrowsError(try IIOAccelerometer(device: .named("mma8452"), sysfsRoot: root).locate()) { error in
            XCTAssertTrue("\(error)".contains("in_accel_y_scale reads \"fast\", which is not a number"), "\(error)")
        }
        try fake.write(2, "in_accel_y_scale", "0.25")
        for bad in ["1, 0, 0; 0, 1, 0", "1, 0; 0, 1; 0, 0", "1, 0, 0; 0, x, 0; 0, 0, 1", "0, 0, 0; 0, 1, 0; 0, 0, 1"] {
            try fake.write(2, "mount_matrix", bad)
            XCTAssertThrowsError(try IIOAccelerometer(device: .named("mma8452"), sysfsRoot: root).locate(), bad) {
                XCTAssertTrue("\($0)".contains("mount_matrix: mount matrix"), "\($0)")
            }
        }
    }

    /// `iio:PATH` and `iio:NAME` name one device: when it is not there the spec is refused at
    /// once, saying what was looked for, where, and which IIO devices there are. Plain `iio`
    /// (the first accelerometer, whenever there is one) may wait.
    func testANamedDeviceThatIsNotThereIsRefusedAtOnce() throws {
        let fake = try makeTree()
        let root = fake.root.path
        let devices = "\(root)/bus/iio/devices"
        func refusal(_ text: String, root: String) -> String? {
            do {
                _ = try AccelerometerSpec(parsing: text).makeAccelerometer(sysfsRoot: root)
                return nil
            } catch {
                return error.message
            }
        }
        let listing = "iio:device0 (bmp280), iio:device1 (lis3dh), iio:device2 (mma8452)"
        let cases: [(String, [String])] = [
            ("iio:/nonexistent", ["no IIO device at /nonexistent", "there are \(listing) under \(devices)"]),
            ("iio:iio:device7", ["no IIO device at \(devices)/iio:device7", listing]),
            ("iio:bma250", ["no IIO device named \"bma250\" under \(devices)", "found \(listing)"]),
            ("iio:bmp280", ["iio:device0 (bmp280) has no in_accel_x_raw: it is not an accelerometer"]),
            ("iio:\(fake.device(0).path)", ["has no in_accel_x_raw: it is not an accelerometer"]),
        ]
        for (text, fragments) in cases {
            let message = refusal(text, root: root)
            XCTAssertNotNil(message, "\(text) must be refused")
            for fragment in fragments {
                XCTAssertTrue(message?.contains(fragment) == true, "\(text): \"\(message ?? "")\" lacks \"\(fragment)\"")
            }
        }
        let empty = root + "/empty"
        XCTAssertEqual(refusal("iio:/nonexistent", root: empty),
                       "no IIO device at /nonexistent; there are no IIO devices under \(empty)/bus/iio/devices at all")
        // What is there is accepted; plain `iio` is accepted with no device at all.
        for text in ["iio:lis3dh", "iio:iio:device2", "iio:\(fake.device(1).path)"] {
            XCTAssertNil(refusal(text, root: root), text)
        }
        XCTAssertNil(refusal("iio", root: empty))
    }

    func testGarbageIsDroppedTheSensorCanVanishAndComeBack() async throws {
        let fake = try makeTree()
        let source = IIOAccelerometer(device: .named("lis3dh"), sysfsRoot: fake.root.path,
                                      pollInterval: .milliseconds(5))
        let observer = RotationObserver(accelerometer: source, configuration: .init(mount: .degrees90))
        XCTAssertEqual(observer.captureAngle, .degrees90, "before any sample: upright, plus the mount")
        let reports = Recorder(observer.reports())
        observer.start()
        func events() -> [AccelerometerEvent] {
            reports.all.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
        }
        func dropped(_ reason: String) -> Int { observer.counters.droppedByReason[reason] ?? 0 }
        await eventually("observer.counters.samples > 0") { observer.counters.samples > 0 }
        XCTAssertEqual(observer.sensorStatus, .available("lis3dh at \(fake.device(1).path)"))
        XCTAssertEqual(observer.captureAngle, .degrees90)

        // The chip reads -1 g on its y axis: device x = +g, the device is turned 270°.
        try fake.raw(1, "0", "-980", "0")
        await eventually("270 + mount 90 = 0, got \(observer.captureAngle)") { observer.captureAngle == .degrees0 }

        // Garbage of every kind: dropped and counted, the angle holds.
        let garbage: [([String], String)] = [
            (["abc", "0", "0"], "non-numeric"), (["", "0", "0"], "non-numeric"), (["nan", "0", "0"], "non-finite"),
            (["0", "20", "0"], "zero-vector"), (["50000", "20", "0"], "absurd-magnitude"),
            (["1e999", "0", "0"], "non-finite"),
        ]
        for (values, reason) in garbage {
            let before = dropped(reason)
            try fake.raw(1, values[0], values[1], values[2])
            await eventually("\(values) should be dropped as \(reason)") { dropped(reason) > before }
            XCTAssertEqual(observer.captureAngle, .degrees0, "\(values) must not move the angle")
        }

        // The device disappears: reported once, the angle holds.
        try fake.remove(1)
        await eventually("the sensor unavailable: \(observer.sensorStatus)") { if case .unavailable = observer.sensorStatus { return true } else { return false } }
        guard case .unavailable(let why) = observer.sensorStatus else { return }
        XCTAssertTrue(why.contains("lis3dh went away"), why)
        try await Task.sleep(for: .milliseconds(100))  // the thing tested: the angle holds over this time
        XCTAssertEqual(observer.captureAngle, .degrees0)
        let unavailableCount = events().filter { if case .unavailable = $0 { return true } else { return false } }.count
        XCTAssertEqual(unavailableCount, 1, "a missing device is reported once, not on every poll")

        // It comes back (upside down): found again and read.
        try fake.write(1, "name", "lis3dh")
        try fake.write(1, "in_accel_scale", "0.00980665")
        try fake.write(1, "in_accel_mount_matrix", "0, -1, 0; 1, 0, 0; 0, 0, 1")
        try fake.raw(1, "-1000", "0", "0")
        await eventually("180 + 90 = 270, got \(observer.captureAngle)") { observer.captureAngle == .degrees270 }
        XCTAssertEqual(observer.sensorStatus, .available("lis3dh at \(fake.device(1).path)"))
        observer.stop()
        XCTAssertEqual(observer.counters.dropped, observer.counters.droppedByReason.values.reduce(0, +))
    }

    func testAMissingDeviceIsReportedAndPickedUpWhenItAppears() async throws {
        let root = try temporaryDirectory(self, "sysfs")
        let fake = FakeSysfs(root: root)
        let recorder = Recorder(IIOAccelerometer(sysfsRoot: root.path, pollInterval: .milliseconds(5)).events())
        await recorder.wait { $0.count == 1 }
        guard case .unavailable(let why) = recorder.all.first else { return XCTFail("\(recorder.all)") }
        XCTAssertTrue(why.contains("no IIO accelerometer"), why)
        try fake.write(4, "name", "bma250")
        try fake.raw(4, "0", "0", "-9.8")
        await recorder.wait("a sample with z -9.8: \(recorder.all)") {
            $0.contains(.sample(AccelerometerSample(time: .zero, x: 0, y: 0, z: -9.8))) ||
            $0.contains { if case .sample(let s) = $0 { return s.z == -9.8 } else { return false } }
        }
        XCTAssertEqual(recorder.all[1], .available("bma250 at \(fake.device(4).path)"))
        recorder.cancel()
    }
}
