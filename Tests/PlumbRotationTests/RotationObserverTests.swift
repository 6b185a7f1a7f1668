import Foundation
import PlumbTestSupport
import PlumbRotation
import XCTest

final class RotationObserverTests: XCTestCase {
    /// Writes the storm: upright at 0 ms, then 20 rotations 50 ms apart (the last at 1000 ms), with
    /// garbage lines in between that must change nothing.
    private func writeStorm() throws -> String {
        var lines = ["0 0 9.81 0"]
        for (i, degrees) in RotationCoordinatorTests.stormRotations.enumerated() {
            let s = gravity(Double(degrees), tilt: 10)
            lines.append("\(50 * (i + 1)) \(s.x) \(s.y) \(s.z)")
            if i % 5 == 0 { lines.append("\(50 * (i + 1)) garbage 1 2") }
        }
        let file = try temporaryDirectory(self).appendingPathComponent("storm.txt")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    func testInitialAnglesAreReadableBeforeObserving() async {
        let observer = RotationObserver(accelerometer: FixedAccelerometer(.degrees180),
                                        configuration: .init(mount: .degrees90, displayRotation: .degrees90),
                                        initialDeviceRotation: .degrees0)
        // Before start: the assumed upright device plus the mount.
        XCTAssertEqual(observer.angles, RotationAngles(capture: .degrees90, preview: .degrees0))
        XCTAssertEqual(observer.sensorStatus, .waiting)
        let previews = Recorder(observer.previewAngles())
        var iterator = observer.captureAngles().makeAsyncIterator()
        observer.start()
        let first = await iterator.next()
        XCTAssertEqual(first, .degrees270, "180 + mount 90")
        await observer.waitForSourceEnd()
        XCTAssertEqual(observer.captureAngle, .degrees270)
        XCTAssertEqual(observer.sensorStatus, .ended)
        await previews.wait("\(previews.all)") { $0 == [.degrees180] }
        observer.setDisplayRotation(.degrees180)
        XCTAssertEqual(observer.previewAngle, .degrees90)
        observer.stop()
        await previews.wait("stop() finishes the streams") { _ in previews.isFinished }
        XCTAssertEqual(previews.all, [.degrees180, .degrees90], "display changes publish the preview only")
    }

    func testReplayedStormSettlesOnTheFinalAngleForALateConsumer() async throws {
        let path = try writeStorm()
        let final = RotationAngle(degrees: RotationCoordinatorTests.stormRotations.last!)!
        for debounce in [Duration.zero, .milliseconds(100)] {
            let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(path)),
                                            configuration: .init(debounce: debounce))
            XCTAssertEqual(observer.captureAngle, .degrees0)
            let stream = observer.captureAngles()
            observer.start()
            await observer.waitForSourceEnd()
            // bufferingNewest(1): a consumer that was busy during the storm gets exactly the latest angle.
            var iterator = stream.makeAsyncIterator()
            let first = await iterator.next()
            XCTAssertEqual(first, final, "debounce \(debounce)")
            XCTAssertEqual(observer.captureAngle, final)
            XCTAssertEqual(observer.counters.samples, 21)
            XCTAssertEqual(observer.counters.dropped, 4)
            XCTAssertEqual(observer.counters.droppedByReason, ["non-numeric": 4])
            if debounce == .zero {
                XCTAssertEqual(observer.counters.changes, 20)
            } else {
                XCTAssertLessThan(observer.counters.changes, 20, "debounce swallows short-lived rotations")
            }
            observer.stop()
            let rest = await iterator.next()
            XCTAssertNil(rest, "nothing stale is left behind the final angle")
        }
    }

    func testAConcurrentConsumerEndsOnTheFinalAngleInOrder() async throws {
        let path = try writeStorm()
        let final = RotationAngle(degrees: RotationCoordinatorTests.stormRotations.last!)!
        let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(path), speed: 2),
                                        configuration: .init(debounce: .milliseconds(10)))
        let seen = Recorder(observer.captureAngles())
        let reports = Recorder(observer.reports())
        observer.start()
        await observer.waitForSourceEnd()
        await seen.wait("\(seen.all)") { $0.last == final }
        // Consecutive published angles always differ: only changes are published.
        for (a, b) in zip(seen.all, seen.all.dropFirst()) { XCTAssertNotEqual(a, b) }
        // The reports carry the angles in the order the coordinator adopted them, ending on the final one.
        await reports.wait { $0.last == .ended }
        let adopted = reports.all.compactMap { if case .angles(let a) = $0 { return a.capture } else { return nil } }
        XCTAssertEqual(adopted.last, final)
        XCTAssertEqual(reports.all.last, .ended)
        observer.stop()
    }

    /// Any number of consumers, each with a stream of its own: one reading along, one reading
    /// only after the storm, one for the preview angle, each ends on the final angle; one that
    /// comes after the storm reads the final angle from `angles` and gets nothing stale.
    func testEveryConsumerGetsTheNewestAngleFromItsOwnStream() async throws {
        let path = try writeStorm()
        let final = RotationAngle(degrees: RotationCoordinatorTests.stormRotations.last!)!
        let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(path), speed: 2))
        let along = Recorder(observer.captureAngles())
        let previews = Recorder(observer.previewAngles())
        let behind = observer.captureAngles()
        let dropped = Recorder(observer.captureAngles())
        dropped.cancel()  // a consumer that goes away takes nothing from the others
        observer.start()
        await observer.waitForSourceEnd()
        XCTAssertEqual(observer.counters.changes, 20)
        await along.wait("\(along.all)") { $0.last == final }
        for (a, b) in zip(along.all, along.all.dropFirst()) { XCTAssertNotEqual(a, b) }
        await previews.wait("\(previews.all)") { $0.last == final }

        // Late, by reading: only the newest angle was kept for it.
        var iterator = behind.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first, final)

        // Late, by coming: the angles now, then only what changes from here on.
        let late = Recorder(observer.captureAngles())
        XCTAssertEqual(observer.captureAngle, final)
        observer.stop()
        let rest = await iterator.next()
        XCTAssertNil(rest, "nothing stale behind the final angle")
        await late.wait("stop() ends every stream") { _ in late.isFinished }
        XCTAssertEqual(late.all, [], "a stream reports changes only, not the angle it started at")
        let afterStop = Recorder(observer.captureAngles())
        await afterStop.wait("a stream asked for after stop() ends at once") { _ in afterStop.isFinished }
    }

    func testDebounceCompletesOnATimerWhenNoFurtherSampleArrives() async throws {
        // An event-driven source (like iio-sensor-proxy): one change, then silence, stream still open.
        let source = ScriptedAccelerometer([.available("script"), .sample(.resting(.degrees0, time: .zero)),
                                            .sample(.resting(.degrees90, time: .milliseconds(10)))])
        let observer = RotationObserver(accelerometer: source, configuration: .init(debounce: .milliseconds(150)))
        let seen = Recorder(observer.captureAngles())
        observer.start()
        await seen.wait("the pending 90 is adopted by the timer: \(seen.all)") { $0 == [.degrees90] }
        XCTAssertEqual(observer.sensorStatus, .available("script"), "the source is still open")
        observer.stop()
    }

    func testDroppingTheObserverEndsItsTasks() async throws {
        let path = try writeStorm()
        var observer: RotationObserver? = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(path)))
        let stream = observer!.captureAngles()
        observer!.start()
        weak let weakObserver = observer
        observer = nil
        XCTAssertNil(weakObserver, "the driver task holds the observer weakly")
        var iterator = stream.makeAsyncIterator()
        // The stream finishes (deinit stops the observer), whatever it buffered.
        while await iterator.next() != nil {}
    }
}

/// Yields its events, then stays open until cancelled.
struct ScriptedAccelerometer: Accelerometer {
    let script: [AccelerometerEvent]
    init(_ script: [AccelerometerEvent]) { self.script = script }

    func events() -> AsyncStream<AccelerometerEvent> {
        AsyncStream { continuation in
            for e in script { continuation.yield(e) }
        }
    }

    var description: String { "script" }
}
