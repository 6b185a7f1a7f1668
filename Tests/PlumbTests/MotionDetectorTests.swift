@testable import Plumb
import PlumbRotation
import PlumbTestSupport
import XCTest

/// The motion detector on synthetic 160x120 grey frames, analysed every 0.2 s (5 fps).
final class MotionDetectorTests: XCTestCase {
    private let width = 160, height = 120
    /// Where the object goes: 50x38 pixels, about a tenth of the picture.
    private let object = (x: 60, y: 40, width: 50, height: 38)

    /// A still scene with texture: grey levels 40 to 199 in diagonal stripes.
    private func scene(width: Int = 160, height: Int = 120) -> [UInt8] {
        (0..<(width * height)).map { i in UInt8(40 + ((i % width) * 7 + (i / width) * 13) % 160) }
    }

    /// The scene with a bright object (grey 250) in a rectangle of the frame.
    private func withObject(_ frame: [UInt8], x: Int, y: Int, width w: Int, height h: Int, frameWidth: Int = 160) -> [UInt8] {
        var f = frame
        for row in y..<(y + h) { for col in x..<(x + w) { f[row * frameWidth + col] = 250 } }
        return f
    }

    /// Feeds `frames` from time `start`, 0.2 s apart; the results in order.
    private func feed(_ detector: inout MotionDetector, _ frames: [[UInt8]], from start: Double = 0,
                      width: Int = 160, height: Int = 120, angle: RotationAngle = .degrees0) -> [MotionDetector.Result] {
        frames.enumerated().map { n, f in
            detector.analyze(f, width: width, height: height, time: start + Double(n) * 0.2, angle: angle)
        }
    }

    func testAStillSceneStaysQuiet() {
        var d = MotionDetector(options: MotionOptions())
        let results = feed(&d, Array(repeating: scene(), count: 300))
        XCTAssertEqual(results.compactMap(\.change), [])
        XCTAssertEqual(results.map(\.fraction).max(), 0)
        XCTAssertEqual(d.state, .quiet)
    }

    /// An object entering a tenth of the picture starts motion on the second frame it is in
    /// (min-frames 2), boxed; gone for quiet-seconds, motion ends.
    func testAnObjectIsFoundWithinTwoFramesWithItsBox() throws {
        var d = MotionDetector(options: MotionOptions(quietSeconds: 0.9))
        let still = scene()
        let moved = withObject(still, x: object.x, y: object.y, width: object.width, height: object.height)
        let results = feed(&d, Array(repeating: still, count: 10) + Array(repeating: moved, count: 2)
                                   + Array(repeating: still, count: 10))
        XCTAssertEqual(results[0..<10].compactMap(\.change), [])
        XCTAssertNil(results[10].change)
        XCTAssertEqual(results[11].change, .started)
        XCTAssertEqual(results[11].fraction, Double(object.width * object.height) / Double(width * height), accuracy: 0.01)
        let box = try XCTUnwrap(results[11].boxes.first)
        XCTAssertEqual(results[11].boxes.count, 1, "\(results[11].boxes)")
        XCTAssertEqual(box.x, Double(object.x) / 160, accuracy: 0.01)
        XCTAssertEqual(box.y, Double(object.y) / 120, accuracy: 0.01)
        XCTAssertEqual(box.width, Double(object.width) / 160, accuracy: 0.01)
        XCTAssertEqual(box.height, Double(object.height) / 120, accuracy: 0.01)
        // Gone at frame 12 (2.4 s): the last motion frame was at 2.2 s, so it ends 0.9 s later: at 3.2 s, frame 16.
        XCTAssertEqual(results[12...].compactMap(\.change), [.ended])
        XCTAssertEqual(results[16].change, .ended)
        XCTAssertEqual(d.state, .quiet)
    }

    /// An object with rows of the background's own grey across it (a scene's grid lines the
    /// same grey as the object, after scaling): its changed parts, a pixel apart, are one
    /// region, one box around the whole object.
    func testAnObjectCutByUnchangedRowsIsOneBox() throws {
        var d = MotionDetector(options: MotionOptions())
        let still = scene()
        var moved = withObject(still, x: object.x, y: object.y, width: object.width, height: object.height)
        for row in stride(from: object.y + 8, to: object.y + object.height - 4, by: 9) {
            for col in object.x..<(object.x + object.width) { moved[row * width + col] = still[row * width + col] }
        }
        let results = feed(&d, Array(repeating: still, count: 5) + Array(repeating: moved, count: 2))
        XCTAssertEqual(results[6].change, .started)
        XCTAssertEqual(results[6].boxes.count, 1, "\(results[6].boxes)")
        let box = try XCTUnwrap(results[6].boxes.first)
        XCTAssertEqual(box.y, Double(object.y) / 120, accuracy: 0.01)
        XCTAssertEqual(box.height, Double(object.height) / 120, accuracy: 0.01)
    }

    func testAnObjectInsideAMaskIsNotFound() {
        let mask = NormalizedRect(x: 0.35, y: 0.3, width: 0.35, height: 0.4)
        var d = MotionDetector(options: MotionOptions(masks: [mask]))
        let still = scene()
        let moved = withObject(still, x: object.x, y: object.y, width: object.width, height: object.height)
        let results = feed(&d, Array(repeating: still, count: 5) + Array(repeating: moved, count: 20))
        XCTAssertEqual(results.compactMap(\.change), [])
        XCTAssertEqual(results.map(\.fraction).max(), 0)
    }

    /// A mask set while the detector runs (`PATCH /motion`) counts from the next frame: the
    /// object under it changes nothing more, with the background it learnt kept (no frame
    /// of re-learning); taken away, the object is found again.
    func testAMaskSetWhileRunningCountsFromTheNextFrame() {
        var d = MotionDetector(options: MotionOptions())
        let still = scene()
        let moved = withObject(still, x: object.x, y: object.y, width: object.width, height: object.height)
        let before = feed(&d, Array(repeating: still, count: 5) + [moved])
        XCTAssertGreaterThan(before.last?.fraction ?? 0, 0.05, "the object is seen")
        d.setMasks([NormalizedRect(x: 0.35, y: 0.3, width: 0.35, height: 0.4)])
        XCTAssertEqual(d.options.masks.count, 1)
        let masked = feed(&d, [moved, still, moved], from: 1.2)
        XCTAssertEqual(masked.map(\.fraction), [0, 0, 0], "the masked object changes nothing")
        d.setMasks([])
        let unmasked = feed(&d, [still, moved], from: 1.8)
        XCTAssertGreaterThan(unmasked.last?.fraction ?? 0, 0.05, "without the mask the object is seen again")
    }

    /// The whole scene 30 % brighter at once is a lighting change: no motion, and the
    /// background re-learns (the brighter scene is quiet afterwards).
    func testAThirtyPercentBrightnessChangeIsLightingNotMotion() {
        var d = MotionDetector(options: MotionOptions())
        let still = scene()
        let bright = still.map { UInt8(min(255, (Double($0) * 1.3).rounded())) }
        let results = feed(&d, Array(repeating: still, count: 10) + Array(repeating: bright, count: 30))
        XCTAssertEqual(results.compactMap(\.change), [])
        XCTAssertEqual(results.map(\.lighting), Array(repeating: false, count: 10) + [true] + Array(repeating: false, count: 29))
        XCTAssertEqual(results[11...].map(\.fraction).max(), 0)
        // A dim scene (grey 30 to 129) 30 % brighter: few pixels pass the threshold, but the
        // whole picture's gain explains them: lighting too.
        var dim = MotionDetector(options: MotionOptions())
        let dimScene = scene().map { UInt8(30 + (Int($0) - 40) * 100 / 160) }
        let lit = dimScene.map { UInt8((Double($0) * 1.3).rounded()) }
        let dimResults = feed(&dim, Array(repeating: dimScene, count: 5) + Array(repeating: lit, count: 10))
        XCTAssertEqual(dimResults.compactMap(\.change), [])
        XCTAssertEqual(dimResults.map(\.lighting), Array(repeating: false, count: 5) + [true] + Array(repeating: false, count: 9))
        // Two thirds of the picture changed at once with the overall brightness the same
        // (its grey levels turned over): lighting by the changed part alone.
        var most = MotionDetector(options: MotionOptions())
        let turnedOver = scene().enumerated().map { i, v in i % 160 < 107 ? 239 - v : v }
        let mostResults = feed(&most, Array(repeating: scene(), count: 5) + Array(repeating: turnedOver, count: 10))
        XCTAssertEqual(mostResults.compactMap(\.change), [])
        XCTAssertEqual(mostResults.map(\.lighting), Array(repeating: false, count: 5) + [true] + Array(repeating: false, count: 9))
    }

    /// Random grain each frame, large enough that a fifth of the pixels pass the threshold
    /// every frame (a third while the background is still the first frame): specks, not motion.
    func testRandomGrainIsNotMotion() {
        var d = MotionDetector(options: MotionOptions(sensitivity: 0.8))
        XCTAssertEqual(d.options.threshold, 20)
        var random = SplitMix64(seed: 27)
        let still = scene()
        let frames = (0..<200).map { _ in still.map { UInt8(Int($0) + random.next(below: 51) - 25) } }
        let results = feed(&d, frames)
        XCTAssertEqual(results.compactMap(\.change), [])
        XCTAssertEqual(results.filter(\.lighting).count, 0)
        XCTAssertLessThan(results.map(\.fraction).max() ?? 1, 0.005)
    }

    /// A device turned a quarter: the frame is 120x160 as the sensor gives it; masks are
    /// upright and the boxes come back upright.
    func testTurnedFramesKeepMasksAndBoxesOnTheScene() throws {
        // The object's rectangle in the 120x160 frame, and where it lies upright (turned clockwise 90°).
        let inFrame = NormalizedRect(x: 30.0 / 120, y: 60.0 / 160, width: 40.0 / 120, height: 50.0 / 160)
        let upright = inFrame.turned(clockwise: .degrees90)
        let still = scene(width: 120, height: 160)
        let moved = withObject(still, x: 30, y: 60, width: 40, height: 50, frameWidth: 120)
        var d = MotionDetector(options: MotionOptions())
        let results = feed(&d, [still, still, moved, moved], width: 120, height: 160, angle: .degrees90)
        XCTAssertEqual(results[3].change, .started)
        let box = try XCTUnwrap(results[3].boxes.first)
        XCTAssertEqual(box.x, upright.x, accuracy: 0.01)
        XCTAssertEqual(box.y, upright.y, accuracy: 0.01)
        XCTAssertEqual(box.width, upright.width, accuracy: 0.01)
        XCTAssertEqual(box.height, upright.height, accuracy: 0.01)
        // The mask drawn upright over it hides it.
        var masked = MotionDetector(options: MotionOptions(masks: [upright]))
        XCTAssertEqual(feed(&masked, [still, still, moved, moved, moved], width: 120, height: 160, angle: .degrees90)
                        .compactMap(\.change), [])
    }

    func testOptionsOutOfRangeSayWhatToFix() {
        XCTAssertThrowsError(try MotionOptions(sensitivity: 1.5).validate()) { XCTAssertTrue("\($0)".contains("sensitivity 1.5")) }
        XCTAssertThrowsError(try MotionOptions(minArea: 0).validate()) { XCTAssertTrue("\($0)".contains("min-area")) }
        XCTAssertThrowsError(try MotionOptions(minFrames: 0).validate()) { XCTAssertTrue("\($0)".contains("min-frames")) }
        XCTAssertNoThrow(try MotionOptions().validate())
    }
}
