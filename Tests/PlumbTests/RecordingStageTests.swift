import Foundation
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

    // MARK: Frames

    /// A stage built, latched at `angle` when given.
    static func attached(_ angle: RotationAngle? = nil) -> Stage {
        var stage = Stage.made
        _ = stage.startBuild()
        stage.built("pads")
        if let angle { _ = stage.latch(angle) }
        return stage
    }

    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    /// The muxer's frame at `pts` ms, 33 ms long; `counts`: the tee's counts at it.
    static func frame(_ stage: inout Stage, at ms: UInt64, counts: RecordingProgress.Counts? = nil) -> Stage.FrameAction {
        stage.frame(pts: ms * 1_000_000, end: (ms + 33) * 1_000_000, now: { (date, synchronized: true) },
                    counts: { counts })
    }

    func testNothingBeforeTheFirstKeyframeLeavesTheEncoder() {
        var stage = Self.attached(.degrees90)
        XCTAssertFalse(stage.encoded(keyframe: false), "a file starts decodable")
        XCTAssertEqual(stage.attached(), "pads", "still waiting for its keyframe: the request may go")
        XCTAssertTrue(stage.encoded(keyframe: true))
        guard case .keyframed("pads", .degrees90) = stage else { return XCTFail("\(stage)") }
        XCTAssertTrue(stage.encoded(keyframe: false), "after the first keyframe every frame goes on")
        XCTAssertNil(stage.attached(), "no keyframe request once one has left the encoder")
        XCTAssertEqual(stage.angle, .degrees90)
        XCTAssertNil(stage.progress, "no frame at the muxer yet")

        var unbuilt = Stage.made
        XCTAssertFalse(unbuilt.encoded(keyframe: true), "no branch")
        guard case .made = unbuilt else { return XCTFail("\(unbuilt)") }
    }

    func testAKeyframeBeforeTheAngleStillTakesTheFirstAngle() {
        var stage = Self.attached()
        XCTAssertTrue(stage.encoded(keyframe: true))
        XCTAssertEqual(stage.latch(.degrees180), "pads")
        XCTAssertEqual(stage.angle, .degrees180)
        XCTAssertNil(stage.latch(.degrees90), "a file has one angle")
    }

    func testTheFirstFrameAtTheMuxerStartsTheProgress() throws {
        var stage = Self.attached(.degrees270)
        _ = stage.encoded(keyframe: true)
        XCTAssertEqual(Self.frame(&stage, at: 1000, counts: (entered: 5, lost: 1)), .first(1_000_000_000))
        let first = try XCTUnwrap(stage.progress)
        XCTAssertEqual(first.frames, 1)
        XCTAssertEqual(first.firstDate, Self.date)
        XCTAssertEqual(first.clockSynchronized, true)
        XCTAssertEqual(first.entriesBeforeFirst.entered, 4, "the counts just before the first frame")
        XCTAssertEqual(first.entriesBeforeFirst.lost, 1)
        XCTAssertEqual(first.seconds, 0.033, accuracy: 1e-9)
        guard case .recording("pads", .degrees270, _) = stage else { return XCTFail("\(stage)") }

        XCTAssertEqual(Self.frame(&stage, at: 1033, counts: (entered: 6, lost: 1)), .counted)
        // A late frame (behind the latest) counts, but neither moves the end back nor the counts.
        XCTAssertEqual(Self.frame(&stage, at: 1010, counts: (entered: 99, lost: 99)), .counted)
        XCTAssertEqual(Self.frame(&stage, at: 1066), .counted, "counts no longer among the recent entries")
        let progress = try XCTUnwrap(stage.progress)
        XCTAssertEqual(progress.frames, 4)
        XCTAssertEqual(progress.firstPTS, 1_000_000_000)
        XCTAssertEqual(progress.lastPTS, 1_066_000_000)
        XCTAssertEqual(progress.seconds, 0.099, accuracy: 1e-9)
        XCTAssertEqual(progress.entriesAtLast?.entered, 6, "the last counts read are kept")
        XCTAssertEqual(progress.firstDate, Self.date, "the first frame's date stays")
        XCTAssertNil(stage.latch(.degrees0))
        XCTAssertNil(stage.attached())
    }

    func testTheWallClockIsReadForTheFirstFrameOnly() {
        var stage = Self.attached(.degrees0)
        var reads = 0
        for ms in [0, 33, 66] as [UInt64] {
            _ = stage.frame(pts: ms * 1_000_000, end: (ms + 33) * 1_000_000,
                            now: { reads += 1; return (Self.date, synchronized: nil) }, counts: { nil })
        }
        XCTAssertEqual(reads, 1)
        XCTAssertEqual(stage.progress?.frames, 3)
        XCTAssertNil(stage.progress?.clockSynchronized)
        XCTAssertEqual(stage.progress?.entriesBeforeFirst.entered, 0, "no counts: none before")
    }

    func testEndingKeepsTheProgressAndLaterFramesAreIgnored() throws {
        var stage = Self.attached(.degrees90)
        _ = stage.encoded(keyframe: true)
        _ = Self.frame(&stage, at: 0)
        _ = Self.frame(&stage, at: 33)
        XCTAssertTrue(stage.ended(failure: nil))
        XCTAssertEqual(stage.progress?.frames, 2, "the facts of an ended file keep its frames")
        XCTAssertEqual(stage.angle, .degrees90)
        XCTAssertEqual(Self.frame(&stage, at: 66), .ignored)
        XCTAssertEqual(stage.progress?.frames, 2)

        var unbuilt = Stage.made
        XCTAssertEqual(Self.frame(&unbuilt, at: 0), .ignored, "no branch yet")
        XCTAssertNil(unbuilt.progress)
        XCTAssertTrue(unbuilt.ended(failure: nil))
        XCTAssertNil(unbuilt.progress, "a file that never had a frame ends without progress")
    }
}
