import Foundation
import GLib
import PlumbTestSupport
import PlumbRotation
import XCTest

/// iio-sensor-proxy through a real dbus-daemon and a fake service written with GDBus.
final class SensorProxyAccelerometerTests: XCTestCase {
    func testOrientationNamesMapOntoTheConventionAngles() {
        XCTAssertEqual(try SensorProxyAccelerometer.deviceRotation(forOrientation: "normal").get(), .degrees0)
        XCTAssertEqual(try SensorProxyAccelerometer.deviceRotation(forOrientation: "left-up").get(), .degrees90)
        XCTAssertEqual(try SensorProxyAccelerometer.deviceRotation(forOrientation: "bottom-up").get(), .degrees180)
        XCTAssertEqual(try SensorProxyAccelerometer.deviceRotation(forOrientation: "right-up").get(), .degrees270)
        XCTAssertEqual(try SensorProxyAccelerometer.deviceRotation(forOrientation: "undefined").get(), nil)
        XCTAssertThrowsError(try SensorProxyAccelerometer.deviceRotation(forOrientation: "sideways").get())
    }

    func testFollowsTheServiceThroughChangesDisappearanceAndReturn() async throws {
        let bus = try PrivateBus(self)
        let fake = try FakeSensorProxy(address: bus.address, orientation: "normal")
        let observer = RotationObserver(accelerometer: SensorProxyAccelerometer(bus: .address(bus.address)),
                                        configuration: .init(mount: .degrees0, facing: .back))
        observer.start()
        await eventually("the sensor available: \(observer.sensorStatus)") {
            if case .available = observer.sensorStatus { return true } else { return false }
        }
        await eventually("observer.counters.samples == 1") { observer.counters.samples == 1 }
        XCTAssertEqual(fake.claims.withLock { $0.count }, 1, "ClaimAccelerometer once")
        XCTAssertEqual(observer.captureAngle, .degrees0)

        // Every orientation, in the documented mapping.
        for (orientation, angle) in [("left-up", RotationAngle.degrees90), ("bottom-up", .degrees180),
                                     ("right-up", .degrees270), ("normal", .degrees0), ("bottom-up", .degrees180)] {
            fake.setOrientation(orientation)
            await eventually("\(orientation) -> \(angle), got \(observer.captureAngle)") { observer.captureAngle == angle }
        }
        // "undefined" (lying flat) keeps the angle; an unknown name is dropped and counted.
        let samples = observer.counters.samples
        fake.setOrientation("undefined")
        fake.setOrientation("sideways")
        await eventually("\(observer.counters)") { observer.counters.samples == samples + 1 && observer.counters.dropped == 1 }
        XCTAssertEqual(observer.captureAngle, .degrees180)

        // The proxy loses its sensor, then finds it again.
        fake.setHasAccelerometer(false)
        await eventually("\(observer.sensorStatus)") { observer.sensorStatus == .unavailable("iio-sensor-proxy lost its accelerometer") }
        fake.setHasAccelerometer(true)
        await eventually("the sensor available again: \(observer.sensorStatus)") { if case .available = observer.sensorStatus { return true } else { return false } }

        // The service leaves the bus: reported, the angle holds.
        fake.leaveBus()
        await eventually("\(observer.sensorStatus)") { observer.sensorStatus == .unavailable("iio-sensor-proxy left the bus") }
        XCTAssertEqual(observer.captureAngle, .degrees180)
        // Signals from a service that is not the name's owner are ignored.
        fake.setOrientation("left-up")
        try await Task.sleep(for: .milliseconds(100))  // the thing tested: the signal changes nothing over this time
        XCTAssertEqual(observer.captureAngle, .degrees180)

        // It comes back: claimed again and read at once.
        fake.joinBus()
        await eventually("claims \(fake.claims.withLock { $0 }), angle \(observer.captureAngle)") { fake.claims.withLock { $0.count } == 2 && observer.captureAngle == .degrees90 }

        // Stopping releases the claim.
        observer.stop()
        await eventually("fake.releases.withLock { $0.count } == 1") { fake.releases.withLock { $0.count } == 1 }
        XCTAssertEqual(fake.releases.withLock { $0 }, [fake.claims.withLock { $0.last! }])
    }

    func testAServiceThatStartsLaterIsPickedUp() async throws {
        let bus = try PrivateBus(self)
        let recorder = Recorder(SensorProxyAccelerometer(bus: .address(bus.address)).events())
        await recorder.wait { !$0.isEmpty }
        XCTAssertEqual(recorder.all.first, .unavailable(
            "iio-sensor-proxy is not running (no net.hadess.SensorProxy on the \(bus.address) bus)"))
        let fake = try FakeSensorProxy(address: bus.address, orientation: "right-up")
        await recorder.wait("\(recorder.all)") { $0.contains { if case .sample(let s) = $0 { return s.x > 9 } else { return false } } }
        XCTAssertEqual(fake.claims.withLock { $0.count }, 1)
        recorder.cancel()
        await eventually("cancelling the stream releases the claim") { fake.releases.withLock { $0.count } == 1 }
    }

    func testAnUnreachableBusIsReportedAndTheStreamEnds() async throws {
        let dir = try temporaryDirectory(self)
        var events: [AccelerometerEvent] = []
        for await e in SensorProxyAccelerometer(bus: .address("unix:path=\(dir.path)/no-bus")).events() {
            events.append(e)
        }
        XCTAssertEqual(events.count, 1)
        guard case .unavailable(let why) = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(why.hasPrefix("cannot connect to the unix:path="), why)
    }

    /// Ending the stream releases the claim, closes the connection (every GDBus object and
    /// callback released) and ends the client's thread.
    func testEndingTheStreamReleasesTheConnectionAndItsThread() async throws {
        let bus = try PrivateBus(self)
        let fake = try FakeSensorProxy(address: bus.address, orientation: "left-up")
        await eventually("DBusConnection.live == (0, 0)") { DBusConnection.live == (0, 0) }  // earlier tests' clients may still be ending
        let before = DBusConnection.live
        for round in 1...3 {
            let recorder = Recorder(SensorProxyAccelerometer(bus: .address(bus.address)).events())
            await recorder.wait("\(recorder.all)") { $0.contains { if case .sample = $0 { return true } else { return false } } }
            XCTAssertEqual(threads(named: "plumb.sensor-proxy"), 1)
            XCTAssertGreaterThan(DBusConnection.live.connections, before.connections)
            recorder.cancel()
            await eventually("the claim was not released") { fake.releases.withLock { $0.count } == round }
            await eventually("the client's thread did not end") { threads(named: "plumb.sensor-proxy") == 0 }
            XCTAssertEqual(DBusConnection.live.connections, before.connections, "a GDBusConnection outlived the thread")
            XCTAssertEqual(DBusConnection.live.callbacks, before.callbacks, "GDBus callbacks outstanding after the thread")
        }
    }

    /// Threads of this process named `name` (as the kernel keeps it: 15 bytes).
    private func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == String(name.prefix(15))
        }.count
    }
}
