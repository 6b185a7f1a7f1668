import Foundation
import PlumbTestSupport
import PlumbRotation
import XCTest

/// A reading at rest for a device turned `degrees` clockwise, optionally tilted out of the
/// screen plane by `tilt` degrees (toward the viewer).
func gravity(_ degrees: Double, tilt: Double = 0, time: Duration = .zero, g: Double = 9.80665) -> AccelerometerSample {
    let r = degrees * .pi / 180, t = tilt * .pi / 180
    let planar = g * cos(t)
    return AccelerometerSample(time: time, x: -planar * sin(r), y: planar * cos(r), z: g * sin(t))
}

final class RotationCoordinatorTests: XCTestCase {
    // The expected capture angle for device rotations 0, 90, 180, 270, written out per facing and mount.
    // back: mount + rotation; front: mount - rotation (see the Conventions).
    static let table: [(CameraFacing, RotationAngle, [Int])] = [
        (.back, .degrees0, [0, 90, 180, 270]),
        (.back, .degrees90, [90, 180, 270, 0]),
        (.back, .degrees180, [180, 270, 0, 90]),
        (.back, .degrees270, [270, 0, 90, 180]),
        (.front, .degrees0, [0, 270, 180, 90]),
        (.front, .degrees90, [90, 0, 270, 180]),
        (.front, .degrees180, [180, 90, 0, 270]),
        (.front, .degrees270, [270, 180, 90, 0]),
    ]

    func testConventionVectorsGiveTheDocumentedAngles() {
        let g = 9.80665
        let cases: [(Double, Double, Double, Int)] = [(0, g, 0, 0), (-g, 0, 0, 90), (0, -g, 0, 180), (g, 0, 0, 270)]
        for (x, y, z, expected) in cases {
            var c = RotationCoordinator()
            _ = c.update(with: AccelerometerSample(time: .zero, x: x, y: y, z: z))
            XCTAssertEqual(c.angles.capture.degrees, expected, "(\(x), \(y), \(z))")
            XCTAssertEqual(AccelerometerSample.resting(RotationAngle(degrees: expected)!),
                           AccelerometerSample(time: .zero, x: x, y: y, z: z))
        }
    }

    func testTableOfOrientationsMountsAndFacings() {
        var checked = 0
        for (facing, mount, expected) in Self.table {
            for (index, rotation) in RotationAngle.allCases.enumerated() {
                // Exact readings, noisy tilted readings and a weak sensor all agree.
                let samples = [
                    AccelerometerSample.resting(rotation),
                    gravity(Double(rotation.degrees) + 17, tilt: 35),
                    gravity(Double(rotation.degrees) - 17, tilt: -20, g: 4),
                ]
                for sample in samples {
                    var c = RotationCoordinator(configuration: .init(mount: mount, facing: facing))
                    _ = c.update(with: sample)
                    XCTAssertEqual(c.angles.capture.degrees, expected[index],
                                   "\(facing) camera, mount \(mount), device \(rotation), sample \(sample)")
                    XCTAssertEqual(c.angles.preview, c.angles.capture, "no display rotation: preview = capture")
                    XCTAssertEqual(c.deviceRotation, rotation)
                    checked += 1
                }
                XCTAssertEqual(RotationCoordinator.captureAngle(deviceRotation: rotation, mount: mount, facing: facing)
                    .degrees, expected[index])
            }
        }
        XCTAssertEqual(checked, 4 * 4 * 2 * 3)
    }

    func testFrontCameraSwapsNinetyAndTwoSeventy() {
        for rotation in RotationAngle.allCases {
            let back = RotationCoordinator.captureAngle(deviceRotation: rotation, mount: .degrees0, facing: .back)
            let front = RotationCoordinator.captureAngle(deviceRotation: rotation, mount: .degrees0, facing: .front)
            XCTAssertEqual(front, back.inverse)
        }
    }

    func testPreviewSubtractsTheDisplayRotation() {
        // preview + display = capture, for every display rotation and both facings.
        for facing in CameraFacing.allCases {
            for display in RotationAngle.allCases {
                for rotation in RotationAngle.allCases {
                    var c = RotationCoordinator(configuration: .init(mount: .degrees90, facing: facing,
                                                                     displayRotation: display))
                    _ = c.update(with: .resting(rotation))
                    XCTAssertEqual(c.angles.preview + display, c.angles.capture)
                }
            }
        }
        var c = RotationCoordinator(configuration: .init(displayRotation: .degrees90))
        _ = c.update(with: .resting(.degrees180))
        XCTAssertEqual(c.angles, RotationAngles(capture: .degrees180, preview: .degrees90))
        XCTAssertEqual(c.setDisplayRotation(.degrees180), RotationAngles(capture: .degrees180, preview: .degrees0))
        XCTAssertNil(c.setDisplayRotation(.degrees180), "an unchanged display rotation reports nothing")
    }

    /// A switch to a camera facing the other way turns the capture angle (mount - device
    /// rotation for a front camera), the device rotation kept.
    func testSetFacingFollowsTheNewCamera() {
        var c = RotationCoordinator(configuration: .init(facing: .back))
        _ = c.update(with: .resting(.degrees90))
        XCTAssertEqual(c.angles.capture, .degrees90)
        XCTAssertEqual(c.setFacing(.front)?.capture, .degrees270)
        XCTAssertNil(c.setFacing(.front), "an unchanged facing reports nothing")
        XCTAssertEqual(c.setFacing(.back)?.capture, .degrees90)
    }

    func testInitialAnglesBeforeAnySample() {
        let c = RotationCoordinator(configuration: .init(mount: .degrees270), initialDeviceRotation: .degrees0)
        XCTAssertEqual(c.angles, RotationAngles(capture: .degrees270, preview: .degrees270))
        let d = RotationCoordinator(configuration: .init(facing: .front), initialDeviceRotation: .degrees90)
        XCTAssertEqual(d.angles.capture, .degrees270)
    }

    func testHysteresisAroundFortyFive() {
        var c = RotationCoordinator()  // default margin: 20 degrees
        XCTAssertEqual(RotationCoordinator.Configuration().hysteresis, 20)
        XCTAssertEqual(c.update(with: gravity(0)), nil, "upright is the assumed start")
        // Turning clockwise: the angle holds well past 45 and changes at 65.
        for degrees in [30.0, 44, 45, 46, 50, 60, 64.5] {
            XCTAssertNil(c.update(with: gravity(degrees)), "\(degrees)° must not change the angle yet")
            XCTAssertEqual(c.angles.capture, .degrees0)
        }
        XCTAssertEqual(c.update(with: gravity(65.5)), RotationAngles(capture: .degrees90, preview: .degrees90))
        // Turning back: holds until 25.
        for degrees in [60.0, 46, 45, 44, 30, 25.5] {
            XCTAssertNil(c.update(with: gravity(degrees)), "\(degrees)° must hold 90")
            XCTAssertEqual(c.angles.capture, .degrees90)
        }
        XCTAssertEqual(c.update(with: gravity(24.5))?.capture, .degrees0)
        // The same around 315 (between 270 and 0), going counter-clockwise.
        for degrees in [350.0, 320, 315, 296] {
            XCTAssertNil(c.update(with: gravity(degrees)))
        }
        XCTAssertEqual(c.update(with: gravity(294))?.capture, .degrees270)
    }

    func testDeviceHeldNearFortyFiveDoesNotFlap() {
        var c = RotationCoordinator()
        _ = c.update(with: gravity(10))
        var changes = 0
        // 200 samples jittering between 30° and 60°, tilted and untilted.
        for i in 0..<200 {
            let degrees = 45 + 15 * sin(Double(i) * 0.7)
            if c.update(with: gravity(degrees, tilt: Double(i % 30))) != nil { changes += 1 }
        }
        XCTAssertEqual(changes, 0)
        XCTAssertEqual(c.angles.capture, .degrees0)
        // Without hysteresis the same jitter flaps: the margin is what holds it.
        var loose = RotationCoordinator(configuration: .init(hysteresis: 0))
        _ = loose.update(with: gravity(10))
        var looseChanges = 0
        for i in 0..<200 where loose.update(with: gravity(45 + 15 * sin(Double(i) * 0.7))) != nil {
            looseChanges += 1
        }
        XCTAssertGreaterThan(looseChanges, 10)
    }

    func testFlatDeviceKeepsTheLastAngle() {
        var c = RotationCoordinator(configuration: .init(mount: .degrees90))
        XCTAssertEqual(c.update(with: .resting(.degrees270))?.capture, .degrees0)
        let flat: [AccelerometerSample] = [
            .lyingFlat(),
            AccelerometerSample(time: .zero, x: 0, y: 0, z: -9.81),  // face down
            AccelerometerSample(time: .zero, x: 0.5, y: -0.3, z: 9.7),  // noise pointing at 120°
            AccelerometerSample(time: .zero, x: -0.2, y: -3.5, z: 9.2),  // tilted 69° toward 180
            gravity(0, tilt: 70),
        ]
        for sample in flat {
            XCTAssertNil(c.update(with: sample), "flat: \(sample)")
            XCTAssertEqual(c.angles.capture, .degrees0)
            XCTAssertEqual(c.deviceRotation, .degrees270)
        }
        // Lifting it again (tilt 60°, under the 65° limit) reads the new rotation.
        XCTAssertEqual(c.update(with: gravity(180, tilt: 60))?.capture, .degrees270)
        // The first reading of a flat device leaves the assumed rotation.
        var fresh = RotationCoordinator(initialDeviceRotation: .degrees90)
        XCTAssertNil(fresh.update(with: .lyingFlat()))
        XCTAssertEqual(fresh.deviceRotation, .degrees90)
    }

    func testDebounceAdoptsOnlyARotationThatPersists() {
        var c = RotationCoordinator(configuration: .init(debounce: .milliseconds(100)))
        XCTAssertEqual(c.update(with: gravity(90, time: .zero))?.capture, .degrees90, "the first reading is immediate")
        XCTAssertNil(c.update(with: gravity(0, time: .milliseconds(10))))
        XCTAssertEqual(c.pendingRotation, .degrees0)
        XCTAssertEqual(c.pendingDeadline, .milliseconds(110))
        XCTAssertNil(c.update(with: gravity(0, time: .milliseconds(60))))
        XCTAssertNil(c.update(with: gravity(90, time: .milliseconds(70))), "back to 90 cancels the pending 0")
        XCTAssertNil(c.pendingRotation)
        XCTAssertNil(c.update(with: gravity(180, time: .milliseconds(80))))
        XCTAssertNil(c.update(with: gravity(180, time: .milliseconds(179))))
        XCTAssertEqual(c.update(with: gravity(180, time: .milliseconds(180)))?.capture, .degrees180)
        // With no further sample, advance(to:) adopts at the deadline and not before.
        XCTAssertNil(c.update(with: gravity(270, time: .milliseconds(200))))
        XCTAssertNil(c.advance(to: .milliseconds(299)))
        XCTAssertEqual(c.advance(to: .milliseconds(300))?.capture, .degrees270)
        XCTAssertNil(c.advance(to: .milliseconds(900)))
        // A flat reading forgets a pending rotation.
        XCTAssertNil(c.update(with: gravity(0, time: .milliseconds(1000))))
        XCTAssertNil(c.update(with: .lyingFlat(time: .milliseconds(1010))))
        XCTAssertNil(c.advance(to: .milliseconds(2000)))
        XCTAssertEqual(c.angles.capture, .degrees270)
    }

    static let stormRotations = RotationStorm.degrees

    func testStormOfTwentyChangesInOneSecondSettlesOnTheFinalAngle() {
        let storm = Self.stormRotations.enumerated().map { i, degrees in
            gravity(Double(degrees), time: .milliseconds(50 * i))
        }
        let final = RotationAngle(degrees: Self.stormRotations.last!)!
        for debounce in [Duration.zero, .milliseconds(30), .milliseconds(100), .milliseconds(400)] {
            var c = RotationCoordinator(configuration: .init(debounce: debounce))
            _ = c.update(with: gravity(0))
            var adopted: [RotationAngle] = []
            // A driver as RotationObserver is one: a pending rotation is adopted at its deadline
            // when that comes before the next sample.
            for sample in storm {
                if let deadline = c.pendingDeadline, deadline <= sample.time, let a = c.advance(to: deadline) {
                    adopted.append(a.capture)
                }
                if let a = c.update(with: sample) { adopted.append(a.capture) }
            }
            if let deadline = c.pendingDeadline, let a = c.advance(to: deadline) { adopted.append(a.capture) }
            XCTAssertEqual(c.angles.capture, final, "debounce \(debounce)")
            XCTAssertEqual(adopted.last, final)
            if debounce >= .milliseconds(100) {
                XCTAssertEqual(adopted, [final], "a debounce longer than the changes' spacing adopts only the last")
            } else {
                XCTAssertEqual(adopted.map(\.degrees), Self.stormRotations, "debounce \(debounce)")
            }
        }
    }

    func testRotationAngleArithmeticAndParsing() {
        XCTAssertEqual(RotationAngle(degrees: -90), .degrees270)
        XCTAssertEqual(RotationAngle(degrees: 450), .degrees90)
        XCTAssertNil(RotationAngle(degrees: 45))
        XCTAssertEqual(RotationAngle("180"), .degrees180)
        XCTAssertNil(RotationAngle("ninety"))
        XCTAssertEqual(RotationAngle.degrees90 + .degrees270, .degrees0)
        XCTAssertEqual(RotationAngle.degrees90 - .degrees180, .degrees270)
        XCTAssertEqual(RotationAngle(nearest: 44.9), .degrees0)
        XCTAssertEqual(RotationAngle(nearest: 315.1), .degrees0)
        XCTAssertEqual(RotationAngle(nearest: -100), .degrees270)
        XCTAssertTrue(RotationAngle.degrees90.swapsDimensions)
        XCTAssertFalse(RotationAngle.degrees180.swapsDimensions)
    }
}
