import Foundation
import PlumbTestSupport
import XCTest

/// `plumb rotation --accelerometer sensor-proxy` through Debian's iio-sensor-proxy on a
/// system D-Bus started in the kernel tests' VM, on the hid-sensor-accel-3d device the
/// IIO tests use (`Tests/Kernel/scenarios/50-iio-sensor-proxy.sh`): every orientation the
/// proxy emitted (its debug log) becomes Plumb's angle, in order, after four turns.
///
/// The proxy reads the same raw vectors with the opposite sign convention to Plumb's IIO
/// reader (its own tests: (0, -1 g, 0) is "normal"; Plumb's README: (0, +g, 0) is
/// upright), so these angles are 180° from KernelIIORotationTests' for the same feed.
final class KernelIIOSensorProxyTests: XCTestCase {
    /// The proxy's names as Plumb's README maps them to clockwise angles.
    static let angle = ["normal": 0, "left-up": 90, "bottom-up": 180, "right-up": 270]

    func testEveryOrientationTheProxyEmitsBecomesTheAngle() throws {
        let out = try KernelVM.shared.output(of: "50-iio-sensor-proxy")
        let events = try KernelIIORotationTests.events(out)
        let log = events.joined(separator: "\n")
        let proxyLog = (try? String(contentsOf: out.appendingPathComponent("iio-sensor-proxy.log"), encoding: .utf8)) ?? ""
        let context = "plumb:\n\(log)\niio-sensor-proxy:\n\(proxyLog.suffix(3000))"
        XCTAssertTrue(events.contains { $0.hasPrefix("sensor available: iio-sensor-proxy") }, context)
        // "Emitted orientation changed: from bottom-up to right-up"
        let emitted = proxyLog.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "Emitted orientation changed: from ") else { return nil }
            return line[range.upperBound...].components(separatedBy: " to ").last
        }
        XCTAssertEqual(emitted.count, 5, "the first orientation and four turns: \(emitted)\n\(context)")
        XCTAssertEqual(Set(emitted.dropFirst()).count, 4, "the four turns are the four orientations: \(emitted)")
        let expected = try emitted.map { name in
            let degrees = try XCTUnwrap(Self.angle[name], "iio-sensor-proxy emitted \(name)")
            return "angles: capture \(degrees)°, preview \(degrees)°"
        }
        XCTAssertEqual(events.filter { $0.hasPrefix("angles: ") }, expected, context)
        XCTAssertTrue(log.contains("exit=0"), log)
    }
}
