import Foundation
import PlumbTestSupport
@testable import Plumb
@testable import PlumbService
import XCTest
import PlumbRotation

/// `[rotation] accelerometer` against a machine (a fake sysfs tree): a device the config
/// names must be there, or the config is refused naming the group and key; plain `iio` may
/// wait for one and says so.
final class ServeChoicesTests: XCTestCase {
    /// The config with `[rotation] accelerometer` set to `accelerometer`, as written in the file.
    private func config(_ accelerometer: String) throws -> ServeConfig {
        try ServeConfig.parse(text: "[camera]\ndevice = test\n[rotation]\naccelerometer = \(accelerometer)\n")
    }

    private func resolve(_ accelerometer: String, root: URL) throws -> ServeChoices {
        try ServeChoices.resolve(config(accelerometer), origin: .file("/etc/plumb/plumb.ini"), sysfsRoot: root.path,
                                 cameras: { [] })
    }

    /// `[camera] device = test:clock` (and the other test patterns) is the test pattern, not
    /// a camera name waited for.
    func testATestPatternVariantIsTheTestPattern() throws {
        for (device, source) in [("test:clock", CameraSource.testPattern(.clock)), ("test:smpte", .testPattern(.smpte)),
                                 ("test:mjpeg", .mjpegTestPattern)] {
            let config = try ServeConfig.parse(text: "[camera]\ndevice = \(device)\n[rotation]\naccelerometer = fixed:0\n")
            let choices = try ServeChoices.resolve(config, cameras: { [] })
            XCTAssertEqual(choices.camera, source, device)
        }
    }

    func testANamedAccelerometerThatIsNotThereIsAConfigError() throws {
        let fake = FakeSysfs(root: try temporaryDirectory(self, "sysfs"))
        try fake.write(0, "name", "lis3dh")
        try fake.write(0, "in_accel_scale", "0.00980665")
        try fake.raw(0, "0", "1000", "0")
        let devices = fake.root.path + "/bus/iio/devices"
        for (path, fragment) in [("/nonexistent", "no IIO device at /nonexistent; there are iio:device0 (lis3dh) under \(devices)"),
                                 ("bma250", "no IIO device named \"bma250\" under \(devices) (found iio:device0 (lis3dh))")] {
            XCTAssertThrowsError(try resolve("iio:\(path)", root: fake.root)) { error in
                guard let error = error as? ConfigError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.group, "rotation")
                XCTAssertEqual(error.key, "accelerometer")
                XCTAssertEqual(error.value, "iio:\(path)")
                XCTAssertTrue(error.description.hasPrefix("/etc/plumb/plumb.ini: [rotation] accelerometer = \"iio:\(path)\": "),
                              error.description)
                XCTAssertTrue(error.description.contains(fragment), error.description)
            }
        }
        // What is there is used, by name or by path.
        for path in ["lis3dh", "iio:device0", fake.device(0).path] {
            let choices = try resolve("iio:\(path)", root: fake.root)
            XCTAssertEqual(choices.accelerometer.description, "iio:\(path)")
            XCTAssertTrue(choices.sensor is IIOAccelerometer)
        }
    }

    func testPlainIIOWaitsForADeviceAndSaysSo() throws {
        let fake = FakeSysfs(root: try temporaryDirectory(self, "sysfs"))
        let waiting = try resolve("iio", root: fake.root)
        XCTAssertEqual(waiting.accelerometer, .iio(.any))
        XCTAssertTrue(waiting.rotationSentence.hasPrefix("rotation: iio, none yet: no IIO accelerometer under "),
                      waiting.rotationSentence)
        XCTAssertTrue(waiting.rotationSentence.hasSuffix("; looking for one, the angle holds at 0 meanwhile"),
                      waiting.rotationSentence)
        try fake.write(3, "name", "mma8452")
        try fake.raw(3, "0", "9.8", "0")
        let found = try resolve("iio", root: fake.root)
        XCTAssertEqual(found.rotationSentence,
                       "rotation: IIO accelerometer mma8452 (\(fake.device(3).path)); [rotation] accelerometer = iio")
    }
}
