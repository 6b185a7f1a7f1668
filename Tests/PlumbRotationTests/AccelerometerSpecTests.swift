import Foundation
import PlumbTestSupport
import PlumbRotation
import XCTest

final class AccelerometerSpecTests: XCTestCase {
    func testParsesEveryForm() throws {
        XCTAssertEqual(try AccelerometerSpec(parsing: "iio"), .iio(.any))
        XCTAssertEqual(try AccelerometerSpec(parsing: "iio:lis3dh"), .iio(.named("lis3dh")))
        XCTAssertEqual(try AccelerometerSpec(parsing: "iio:/sys/bus/iio/devices/iio:device3"),
                       .iio(.path("/sys/bus/iio/devices/iio:device3")))
        XCTAssertEqual(try AccelerometerSpec(parsing: "iio:iio:device1"), .iio(.path("iio:device1")))
        XCTAssertEqual(try AccelerometerSpec(parsing: "sensor-proxy"), .sensorProxy(.system))
        XCTAssertEqual(try AccelerometerSpec(parsing: "sensor-proxy:session"), .sensorProxy(.session))
        XCTAssertEqual(try AccelerometerSpec(parsing: "sensor-proxy:unix:path=/tmp/bus"),
                       .sensorProxy(.address("unix:path=/tmp/bus")))
        XCTAssertEqual(try AccelerometerSpec(parsing: "replay:/tmp/motion.txt"), .replay(.file("/tmp/motion.txt")))
        XCTAssertEqual(try AccelerometerSpec(parsing: "replay:-"), .replay(.standardInput))
        for angle in RotationAngle.allCases {
            XCTAssertEqual(try AccelerometerSpec(parsing: "fixed:\(angle.degrees)"), .fixed(angle))
        }
        XCTAssertEqual(try AccelerometerSpec(parsing: "  fixed:90 "), .fixed(.degrees90))
        // Round trip through the description.
        for text in ["iio", "iio:lis3dh", "sensor-proxy", "sensor-proxy:session", "replay:-", "fixed:270"] {
            XCTAssertEqual(try AccelerometerSpec(parsing: text).description, text)
        }
    }

    func testErrorsSayWhatIsAccepted() {
        let cases: [(String, [String])] = [
            ("", ["no accelerometer", "iio", "sensor-proxy", "replay:FILE", "fixed:0|90|180|270"]),
            ("gyro", ["unknown accelerometer \"gyro\"", "replay:FILE"]),
            ("fixed", ["fixed:0, fixed:90, fixed:180 or fixed:270"]),
            ("fixed:45", ["got \"45\""]),
            ("fixed:360", ["got \"360\""]),
            ("fixed:-90", ["got \"-90\""]),
            ("fixed:up", ["got \"up\""]),
            ("replay", ["replay needs a file", "replay:-"]),
            ("replay:", ["replay needs a file"]),
            ("iio:", ["needs a device after the colon", "plain \"iio\""]),
            ("sensor-proxy:nonsense", ["sensor-proxy:system", "got \"nonsense\""]),
        ]
        for (text, fragments) in cases {
            XCTAssertThrowsError(try AccelerometerSpec(parsing: text), text) { error in
                let message = (error as? AccelerometerError)?.message ?? ""
                for fragment in fragments {
                    XCTAssertTrue(message.contains(fragment), "\"\(text)\": \"\(message)\" lacks \"\(fragment)\"")
                }
            }
        }
    }

    func testMakesTheNamedSource() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("motion.txt")
        try "0 0 9.8 0\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertTrue(try AccelerometerSpec(parsing: "replay:\(file.path)").makeAccelerometer() is ReplayAccelerometer)
        XCTAssertTrue(try AccelerometerSpec(parsing: "fixed:90").makeAccelerometer() is FixedAccelerometer)
        XCTAssertTrue(try AccelerometerSpec(parsing: "iio").makeAccelerometer() is IIOAccelerometer)
        XCTAssertTrue(try AccelerometerSpec(parsing: "sensor-proxy").makeAccelerometer() is SensorProxyAccelerometer)
        let missing = dir.appendingPathComponent("nope.txt").path
        XCTAssertThrowsError(try AccelerometerSpec(parsing: "replay:\(missing)").makeAccelerometer()) { error in
            XCTAssertEqual((error as? AccelerometerError)?.message, "replay file \(missing) does not exist")
        }
        XCTAssertThrowsError(try AccelerometerSpec(parsing: "replay:\(file.path)").makeAccelerometer(replaySpeed: 0))
    }

    func testFixedSourceReportsItsRotationOnceAndEnds() async {
        for angle in RotationAngle.allCases {
            var events: [AccelerometerEvent] = []
            for await e in FixedAccelerometer(angle).events() { events.append(e) }
            XCTAssertEqual(events, [.available("fixed:\(angle.degrees)"), .sample(.resting(angle))])
        }
    }
}
