@testable import Plumb
import PlumbRotation
import XCTest

/// A recording file's life (`RecordingStage`), event by event, as its table says, without
/// GStreamer: the plumbing is a name. `RecordingOutputTests` and `SplitOnRotationTests` drive
/// the same events through real branches.
final class RecordingStageTests: XCTestCase {
    typealias Stage = RecordingStage<String>

    func testBuildsOnce() {
        var stage = Stage.made
        XCTAssertTrue(stage.startBuild())
        XCTAssertFalse(stage.startBuild(), "a file is built once")
        stage.built("pads")
        XCTAssertFalse(stage.startBuild())
        XCTAssertEqual(stage.attached(), "pads")
    }

    func testFirstAngleIsLatchedAndLaterOnesChangeNothing() {
        var stage = Stage.made
        XCTAssertNil(stage.latch(.degrees90), "no branch yet: nothing to give the angle to")
        XCTAssertNil(stage.angle)
        _ = stage.startBuild()
        stage.built("pads")
        XCTAssertEqual(stage.latch(.degrees90), "pads")
        XCTAssertEqual(stage.angle, .degrees90)
        XCTAssertNil(stage.latch(.degrees180), "a file has one angle")
        XCTAssertEqual(stage.angle, .degrees90)
        XCTAssertEqual(stage.attached(), "pads", "the keyframe request still reaches a latched file")
    }

    func testEndingLetsGoOfThePadsAndKeepsTheAngleAndFailure() {
        var stage = Stage.made
        _ = stage.startBuild()
        stage.built("pads")
        _ = stage.latch(.degrees270)
        var facts = RecordingFacts(codec: "h264", encoder: "x264enc", width: 640, height: 480, seconds: 1, frames: 30,
                                   bytes: 1, startedAt: "now", orientation: 270, file: "/tmp/a.mp4")
        facts.error = "disk full"
        XCTAssertTrue(stage.ended(failure: facts))
        XCTAssertNil(stage.attached(), "an ended file holds no pad")
        XCTAssertEqual(stage.angle, .degrees270)
        XCTAssertEqual(stage.failure?.error, "disk full")
        XCTAssertFalse(stage.ended(failure: nil), "a file ends once")
        XCTAssertEqual(stage.failure?.error, "disk full", "a second end does not wipe the first one's facts")
        XCTAssertNil(stage.latch(.degrees0))
        XCTAssertFalse(stage.startBuild())
    }

    func testBuildThatNeverFinishedEndsWithoutAngle() {
        var stage = Stage.made
        _ = stage.startBuild()
        XCTAssertNil(stage.attached())
        XCTAssertTrue(stage.ended(failure: nil))
        XCTAssertNil(stage.angle)
        XCTAssertNil(stage.failure)
        stage.built("late")
        XCTAssertNil(stage.attached(), "an ended file is not built again")
    }
}
