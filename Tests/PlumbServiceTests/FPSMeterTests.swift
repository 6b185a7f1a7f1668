import PlumbService
import XCTest

/// The rate `GET /status` reports as `fps`, from (time, frame count) samples given at
/// chosen instants (no clock is read, so nothing here depends on the machine's speed).
final class FPSMeterTests: XCTestCase {
    func testTheRateIsOverTheLastSamplesAndRestartsWithANewSession() {
        let meter = FPSMeter(window: 2)
        let t0 = ContinuousClock.now
        XCTAssertNil(meter.framesPerSecond, "no samples")
        meter.add(frames: 100, at: t0)
        XCTAssertNil(meter.framesPerSecond, "one sample is no rate")
        meter.add(frames: 130, at: t0 + .seconds(1))
        XCTAssertEqual(try XCTUnwrap(meter.framesPerSecond), 30, accuracy: 1e-9)
        // The window holds the last 3 samples: the first one drops out.
        meter.add(frames: 145, at: t0 + .seconds(2))
        meter.add(frames: 160, at: t0 + .seconds(3))
        XCTAssertEqual(try XCTUnwrap(meter.framesPerSecond), 15, accuracy: 1e-9)
        // A smaller count is a new session's: the old samples go.
        meter.add(frames: 10, at: t0 + .seconds(4))
        XCTAssertNil(meter.framesPerSecond)
        meter.add(frames: 35, at: t0 + .milliseconds(4500))
        XCTAssertEqual(try XCTUnwrap(meter.framesPerSecond), 50, accuracy: 1e-9)
        // A camera that stopped delivering has no rate.
        meter.reset()
        meter.add(frames: 35, at: t0 + .seconds(5))
        meter.add(frames: 35, at: t0 + .seconds(6))
        XCTAssertNil(meter.framesPerSecond)
    }
}
