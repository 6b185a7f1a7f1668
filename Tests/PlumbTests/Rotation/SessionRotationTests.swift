import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest
import PlumbRotation

/// The session following a `RotationObserver`: the AVCam pattern (read the angles first,
/// observe from one weak task, re-apply to outputs added later), checked on real branches.
final class SessionRotationTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    /// The observer's current angles are applied before observing: an observer whose angle
    /// never changes still turns the session, and the preview's very first frame is upright.
    func testTheCurrentAnglesAreAppliedBeforeObserving() async throws {
        let dir = try temporaryDirectory(self)
        // No sample ever comes: the streams never yield; only the initial read can turn it.
        let observer = RotationObserver(accelerometer: HandheldAccelerometer(), initialDeviceRotation: .degrees90)
        XCTAssertEqual(observer.captureAngle, .degrees90)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let early = PreviewOutput()
        try await session.attach(early)
        try await session.follow(observer)
        // Synchronously on return: no waiting for a stream.
        let rotation = await session.rotation
        XCTAssertEqual(rotation, .degrees90)
        XCTAssertEqual(early.rotation, .degrees90, "an output attached before following is turned too")
        let late = PreviewOutput()
        try await session.attach(late)
        try await session.waitForFrames(5)
        XCTAssertEqual(late.firstFrameSize, VideoSize(width: 240, height: 320), "the first frame is already upright")
        let photo = try await session.takePhoto()
        let url = try write(photo.jpeg, named: "first.jpg", in: dir)
        XCTAssertEqual(try IndependentReaders.exiftool("Orientation", url.path), 6)
        await session.close()
        observer.stop()
    }

    /// A replayed storm of 20 rotations in one second: the session ends on the final angle,
    /// and so do its preview (pixels) and stills (EXIF).
    func testAReplayedStormSettlesOnTheFinalAngle() async throws {
        let dir = try temporaryDirectory(self)
        let storm = RotationStorm.degrees.map { RotationAngle(degrees: $0)! }
        let path = try replayFile([.degrees0] + storm, hold: .milliseconds(50), in: dir)
        let final = storm.last!
        let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(path)))
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let preview = PreviewOutput()
        try await session.attach(preview)
        try await session.follow(observer)
        await observer.waitForSourceEnd()
        XCTAssertEqual(observer.counters.changes, 20)
        await eventually("preview at \(preview.rotation), expected \(final)") { preview.rotation == final }
        let rotation = await session.rotation
        XCTAssertEqual(rotation, final)
        let previewRotation = await session.previewRotation
        XCTAssertEqual(previewRotation, final)
        try await session.waitForFrames(3)
        await eventually("preview.lastShownTurn?.turn.angle == final") { preview.lastShownTurn?.turn.angle == final }
        XCTAssertEqual(preview.lastFrameSize, final.swapsDimensions ? VideoSize(width: 240, height: 320) : qvga)
        let photo = try await session.takePhoto()
        let url = try write(photo.jpeg, named: "storm.jpg", in: dir)
        XCTAssertEqual(try IndependentReaders.exiftool("Orientation", url.path), final.exifOrientation)
        await session.close()
    }

    /// A display that is itself turned: the preview gets the preview angle (capture less the
    /// display's rotation), stills and recordings the capture angle.
    func testPreviewAndCaptureAnglesAreAppliedApart() async throws {
        let dir = try temporaryDirectory(self)
        let hand = HandheldAccelerometer()
        let observer = RotationObserver(accelerometer: hand, configuration: .init(displayRotation: .degrees90))
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let preview = PreviewOutput()
        try await session.attach(preview)
        try await session.follow(observer)
        hand.turn(to: .degrees90)
        // capture = 90 (device) ; preview = 90 - 90 (display) = 0
        await eventually("capture at 90°, preview at 0°: \(observer.angles)") {
            observer.angles == RotationAngles(capture: .degrees90, preview: .degrees0)
        }
        await eventually("await session.rotation == .degrees90") { await session.rotation == .degrees90 }
        XCTAssertEqual(preview.rotation, .degrees0)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("apart.mp4"))
        _ = try await recording.firstFrameTime()
        let photo = try await session.takePhoto()
        let facts = try await recording.stop()
        XCTAssertEqual(facts.orientation, 90)
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", recording.url.path), 90)
        XCTAssertEqual(try IndependentReaders.exiftool("Orientation", try write(photo.jpeg, named: "a.jpg", in: dir).path), 6)
        // Upright device: capture 0, preview 0 - 90 = 270.
        hand.turn(to: .degrees0)
        await eventually("preview at \(preview.rotation)") { preview.rotation == .degrees270 }
        let capture = await session.rotation
        XCTAssertEqual(capture, .degrees0)
        await session.close()
        observer.stop()
    }

    /// An output attached after the angle arrived gets it before its first frame — the
    /// preview's first frame turned, a recording's matrix — however late it comes.
    func testOutputsAttachedLaterGetTheFollowedAngleBeforeTheirFirstFrame() async throws {
        let dir = try temporaryDirectory(self)
        let observer = RotationObserver(accelerometer: FixedAccelerometer(.degrees270))
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        try await session.follow(observer)
        await observer.waitForSourceEnd()
        await eventually("await session.rotation == .degrees270") { await session.rotation == .degrees270 }
        let preview = PreviewOutput()
        try await session.attach(preview)
        try await session.waitForFrames(3)
        XCTAssertEqual(preview.firstFrameSize, VideoSize(width: 240, height: 320))
        XCTAssertEqual(preview.sizeChanges.count, 1, "never shown the wrong way: \(preview.sizeChanges)")
        let recording = try await session.startRecording(to: dir.appendingPathComponent("late.mp4"))
        _ = try await recording.firstFrameTime()
        _ = try await recording.stop()
        XCTAssertTrue(RotationAngle.degrees270.ffprobeRotations.contains(try IndependentReaders.ffprobeRotation(recording.url.path)))
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", recording.url.path), 270)
        await session.close()
    }

    /// After `stopFollowing()` the observer's changes no longer reach the session; the last
    /// angle stays. Following the same observer again starts from its angle now; following
    /// another one leaves the first behind.
    func testStopFollowingKeepsTheLastAngleAndFollowingAgainCatchesUp() async throws {
        let hand = HandheldAccelerometer()
        let observer = RotationObserver(accelerometer: hand)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        try await session.follow(observer)
        hand.turn(to: .degrees180)
        await eventually("the session at 180°") { await session.rotation == .degrees180 }
        await session.stopFollowing()
        let following = await session.isFollowing
        XCTAssertFalse(following)
        try await assertNotApplied(turning: hand, to: .degrees90, of: observer, session: session, keeps: .degrees180,
                                   "a change after stopFollowing() was applied")

        // The same observer again: its angle now at once, then its changes.
        try await session.follow(observer)
        let caughtUp = await session.rotation
        XCTAssertEqual(caughtUp, .degrees90, "following again starts from the observer's current angle")
        hand.turn(to: .degrees270)
        await eventually("the session at 270°") { await session.rotation == .degrees270 }

        // A new observer takes over, starting from its own current angle; the old one is left.
        let next = RotationObserver(accelerometer: FixedAccelerometer(.degrees180))
        try await session.follow(next)
        await eventually("await session.rotation == .degrees180") { await session.rotation == .degrees180 }
        try await assertNotApplied(turning: hand, to: .degrees0, of: observer, session: session, keeps: .degrees180,
                                   "the observer no longer followed still turned the session")
        await session.close()
        observer.stop()
        next.stop()
    }

    /// Turns `hand` until `observer` has `angle`, then checks a while later that `session` kept its angle.
    private func assertNotApplied(turning hand: HandheldAccelerometer, to angle: RotationAngle, of observer: RotationObserver,
                                  session: CaptureSession, keeps kept: RotationAngle, _ message: String,
                                  file: StaticString = #filePath, line: UInt = #line) async throws {
        hand.turn(to: angle)
        await eventually("observer.captureAngle == angle", file: file, line: line) { observer.captureAngle == angle }
        try await Task.sleep(for: .milliseconds(200))  // the thing tested: still not applied a while after the observer has it
        let rotation = await session.rotation
        XCTAssertEqual(rotation, kept, message, file: file, line: line)
    }

    /// One observer, any number of followers: two sessions both end on every angle (what
    /// `plumb serve` does when it reopens the camera while its events follow the same observer).
    func testTwoSessionsFollowOneObserver() async throws {
        let hand = HandheldAccelerometer()
        let observer = RotationObserver(accelerometer: hand)
        let first = try await CaptureSession.open(.testPattern(), size: qvga)
        let second = try await CaptureSession.open(.testPattern(), size: qvga)
        try await first.follow(observer)
        try await second.follow(observer)
        for angle in [RotationAngle.degrees90, .degrees180, .degrees270] {
            hand.turn(to: angle)
            await eventually("both sessions at \(angle)") {
                let (a, b) = (await first.rotation, await second.rotation)
                return a == angle && b == angle
            }
        }
        await first.close()
        hand.turn(to: .degrees0)
        await eventually("closing one follower took the angles from the other") { await second.rotation == .degrees0 }
        await second.close()
        observer.stop()
    }

    /// The task that applies the angles holds the session weakly: an observer that lives on
    /// does not keep a session alive that nobody else holds (not even one never closed: its
    /// deinit stops the camera).
    func testTheObserverDoesNotKeepTheSessionAlive() async throws {
        let hand = HandheldAccelerometer()
        let observer = RotationObserver(accelerometer: hand)
        var session: CaptureSession? = try await CaptureSession.open(.testPattern(), size: qvga)
        try await session!.follow(observer)
        hand.turn(to: .degrees90)
        await eventually("await session!.rotation == .degrees90") { await session!.rotation == .degrees90 }
        weak let gone = session
        session = nil
        await eventually("something still holds the session") { gone == nil }
        hand.turn(to: .degrees180)  // nothing left to apply it to; must not crash
        observer.stop()
    }
}
