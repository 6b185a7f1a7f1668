@testable import PlumbService
import XCTest

/// The continuous recorder's one state, event by event, in the orders a running daemon can
/// bring them: each test is a sequence of events and the state after each, so an order that
/// is hard to bring about with a real camera (a stop in the middle of a roll) is exact here.
/// `ContinuousRecorderTests` drives the same transitions with a real session and files.
final class RecorderStateTests: XCTestCase {
    /// A file as the state sees it: an identity.
    final class File: CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    typealias State = RecorderState<File>
    let a = File("a"), b = File("b")

    /// The state with its file, "recording a", "starting (waiting for the camera)".
    private func shape(_ state: State) -> String {
        switch state {
        case .recording(let f), .rolling(let f), .finishing(let f?): "\(state) \(f)"
        case .starting(.making(let byRequest)): "\(state)\(byRequest ? " by request" : "")"
        default: "\(state)"
        }
    }

    private func assertState(_ state: State, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(shape(state), expected, file: file, line: line)
    }

    private func refusal(_ body: () throws(State.Refusal) -> Void) -> State.Refusal? {
        do { try body(); return nil } catch { return error }
    }

    private func isLater<T>(_ step: State.Step<T>) -> Bool {
        if case .later = step { true } else { false }
    }

    private func outcome<T>(_ step: State.Step<T>, file: StaticString = #filePath, line: UInt = #line) -> T? {
        guard case .now(let outcome) = step else {
            XCTFail("expected an outcome now, got later", file: file, line: line)
            return nil
        }
        return outcome
    }

    /// The state after a start was made: recording `a`.
    private func recordingA() -> State {
        var state = State.idle
        XCTAssertNil(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) })
        XCTAssertTrue(state.made(a))
        return state
    }

    // MARK: Starting

    func testStartWhileStartingOrRecordingIsRefusedAndChangesNothing() {
        var state = State.idle
        XCTAssertNil(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) })
        assertState(state, "starting by request")
        // A second start while the first file is being made.
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) }, .recording)
        assertState(state, "starting by request")
        XCTAssertFalse(state.startContinuous(hasCamera: true), "nothing more to start")
        XCTAssertFalse(state.cameraOpened(), "the file is being made already")
        XCTAssertTrue(state.made(a))
        assertState(state, "recording a")
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) }, .recording)
        _ = state.segmentDue()
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) }, .recording)
        assertState(state, "rolling a")
    }

    func testStartWithoutACameraIsRefused() {
        var state = State.idle
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: false) }, .noCamera)
        assertState(state, "idle")
    }

    /// A start that fails is the request's answer: nothing is wanted any more. A continuous
    /// or resumed recording that fails waits for the next camera instead.
    func testAFailedStartGivesUpAndAFailedResumeWaitsForTheCamera() {
        var state = State.idle
        XCTAssertNil(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) })
        state.makingFailed()
        assertState(state, "idle")

        XCTAssertTrue(state.startContinuous(hasCamera: true))
        assertState(state, "starting")
        state.makingFailed()
        assertState(state, "starting (waiting for the camera)")
        XCTAssertTrue(state.cameraOpened())
        assertState(state, "starting")
        XCTAssertTrue(state.made(a))
        assertState(state, "recording a")
    }

    /// `[recording] continuous` before the camera opened waits for it; a start by request
    /// in the meantime is refused (no camera) and leaves the wish as it was.
    func testAContinuousRecordingWaitsForTheCamera() {
        var state = State.idle
        XCTAssertFalse(state.startContinuous(hasCamera: false))
        assertState(state, "starting (waiting for the camera)")
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: false) }, .noCamera)
        assertState(state, "starting (waiting for the camera)")
        XCTAssertTrue(state.cameraOpened())
        XCTAssertFalse(state.cameraOpened(), "one file is made, not two")
        assertState(state, "starting")
    }

    // MARK: Stopping

    func testStopFinalizesTheFileAndRefusesWhatComesMeanwhile() throws {
        var state = recordingA()
        var stopped: State.Step<File?>?
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(try XCTUnwrap(stopped.flatMap { outcome($0) }) === a)
        assertState(state, "finishing a")
        XCTAssertNil(state.file, "no file is written while finishing")
        XCTAssertEqual(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) }, .stopping)
        XCTAssertEqual(refusal { () throws(State.Refusal) in _ = try state.stop() }, .stopping)
        XCTAssertNil(state.segmentDue())
        XCTAssertFalse(state.cameraOpened())
        XCTAssertFalse(try XCTUnwrap(outcome(state.ended(a, cameraRunning: true))), "the stop finalizes its own file")
        XCTAssertTrue(try XCTUnwrap(outcome(state.cameraLost())) == nil)
        assertState(state, "finishing a")
        XCTAssertTrue(state.finished())
        assertState(state, "idle")
        XCTAssertEqual(refusal { () throws(State.Refusal) in _ = try state.stop() }, .notRecording)
        XCTAssertFalse(state.finished())
    }

    /// A stop while the next segment is being made waits for it (a roll must not be cut in
    /// half), then stops the file the roll left: the new one; the old one is the roll's to
    /// finalize.
    func testStopWhileRollingWaitsForTheRollThenStopsTheNextFile() throws {
        var state = recordingA()
        XCTAssertTrue(try XCTUnwrap(state.segmentDue()) === a)
        assertState(state, "rolling a")
        var stopped: State.Step<File?>?
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(isLater(try XCTUnwrap(stopped)))
        assertState(state, "rolling a")
        XCTAssertNil(state.segmentDue(), "one roll at a time")

        XCTAssertTrue(try XCTUnwrap(state.rolled(to: b)) === a, "the old file, for the roll to finalize")
        assertState(state, "recording b")
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(try XCTUnwrap(stopped.flatMap { outcome($0) }) === b)
        assertState(state, "finishing b")
    }

    /// A stop while the first file is being made waits for it, then stops it: the start is
    /// answered with its file, the stop with the same file's facts.
    func testStopWhileStartingWaitsForTheFileThenStopsIt() throws {
        var state = State.idle
        XCTAssertNil(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) })
        var stopped: State.Step<File?>?
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(isLater(try XCTUnwrap(stopped)))
        XCTAssertTrue(state.made(a))
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(try XCTUnwrap(stopped.flatMap { outcome($0) }) === a)

        // The making failed instead: nothing to stop.
        state = .idle
        XCTAssertNil(refusal { () throws(State.Refusal) in try state.start(hasCamera: true) })
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(isLater(try XCTUnwrap(stopped)))
        state.makingFailed()
        XCTAssertEqual(refusal { () throws(State.Refusal) in _ = try state.stop() }, .notRecording)
    }

    /// A stop while waiting for the camera ends the wish; there is no file to finalize.
    func testStopWhileWaitingForTheCamera() throws {
        var state = State.idle
        _ = state.startContinuous(hasCamera: false)
        var stopped: State.Step<File?>?
        XCTAssertNil(refusal { () throws(State.Refusal) in stopped = try state.stop() })
        XCTAssertTrue(try XCTUnwrap(stopped.flatMap { outcome($0) }) == nil)
        assertState(state, "finishing")
        XCTAssertTrue(state.finished())
        XCTAssertFalse(state.cameraOpened(), "not wanted any more")
    }

    // MARK: Rolling

    func testARollOverFailingGoesOnInTheSameFile() throws {
        var state = recordingA()
        _ = state.segmentDue()
        state.rollFailed()
        assertState(state, "recording a")
        XCTAssertTrue(try XCTUnwrap(state.segmentDue()) === a, "the next segment is tried again")
    }

    func testSegmentsRollOnlyWhileAFileIsWritten() {
        var state = State.idle
        XCTAssertNil(state.segmentDue())
        _ = state.startContinuous(hasCamera: true)
        XCTAssertNil(state.segmentDue())
        assertState(state, "starting")
        _ = state.made(a)
        _ = state.cameraLost()
        XCTAssertNil(state.segmentDue())
        assertState(state, "starting (waiting for the camera)")
    }

    /// The end of a step that is not under way (not reached by the recorder) changes nothing
    /// and says so, so that the file it brings is finalized rather than lost.
    func testAStepsEndOutOfPlaceIsRejected() {
        var state = State.idle
        XCTAssertFalse(state.made(a))
        XCTAssertNil(state.rolled(to: a))
        state.rollFailed()
        state.makingFailed()
        assertState(state, "idle")
        state = recordingA()
        XCTAssertFalse(state.made(b))
        XCTAssertNil(state.rolled(to: b))
        state.makingFailed()
        state.rollFailed()
        XCTAssertFalse(state.finished())
        assertState(state, "recording a")
    }

    // MARK: Ending by itself, the camera going

    /// A branch that ends by itself while the camera runs (a full disk, an encoder error)
    /// gives the recording up: retrying would fail again. With the camera gone, the
    /// recording waits for it.
    func testABranchEndingByItself() throws {
        var state = recordingA()
        XCTAssertFalse(try XCTUnwrap(outcome(state.ended(b, cameraRunning: true))), "not the file written")
        assertState(state, "recording a")
        XCTAssertTrue(try XCTUnwrap(outcome(state.ended(a, cameraRunning: true))))
        assertState(state, "idle")

        state = recordingA()
        XCTAssertTrue(try XCTUnwrap(outcome(state.ended(a, cameraRunning: false))))
        assertState(state, "starting (waiting for the camera)")
        XCTAssertTrue(state.cameraOpened())
    }

    /// A branch that ends while its file is being rolled: it is dealt with when the roll has
    /// ended. A roll that got away to the next file leaves the old one to the roll (it was
    /// handed over); a roll that failed leaves the recording in the ended file, which ends
    /// the recording.
    func testABranchEndingWhileRolling() throws {
        var state = recordingA()
        _ = state.segmentDue()
        XCTAssertTrue(isLater(state.ended(a, cameraRunning: true)))
        _ = state.rolled(to: b)
        XCTAssertFalse(try XCTUnwrap(outcome(state.ended(a, cameraRunning: true))))
        assertState(state, "recording b")

        state = recordingA()
        _ = state.segmentDue()
        XCTAssertTrue(isLater(state.ended(a, cameraRunning: true)))
        state.rollFailed()
        XCTAssertTrue(try XCTUnwrap(outcome(state.ended(a, cameraRunning: true))))
        assertState(state, "idle")
    }

    /// The camera lost: the file it drained is finalized, the recording waits and resumes in
    /// a new file with the next camera. A file being made or rolled is waited for first.
    func testTheCameraGoingAndComingBack() throws {
        var state = recordingA()
        XCTAssertTrue(try XCTUnwrap(outcome(state.cameraLost())) === a)
        assertState(state, "starting (waiting for the camera)")
        XCTAssertTrue(try XCTUnwrap(outcome(state.cameraLost())) == nil, "lost twice: nothing more to finalize")
        XCTAssertTrue(state.cameraOpened())
        XCTAssertTrue(isLater(state.cameraLost()), "the file being made is waited for")
        XCTAssertTrue(state.made(b))
        _ = state.segmentDue()
        XCTAssertTrue(isLater(state.cameraLost()), "the roll is waited for")
        state.rollFailed()
        XCTAssertTrue(try XCTUnwrap(outcome(state.cameraLost())) === b)
        // Without a wish, losing the camera changes nothing.
        var idle = State.idle
        XCTAssertTrue(try XCTUnwrap(outcome(idle.cameraLost())) == nil)
        assertState(idle, "idle")
    }

    // MARK: Waiting for room

    /// A write error ends the file and leaves the recording waiting for room; room coming
    /// back makes a new file; a stop while waiting ends it; a start is let through (the
    /// recorder checks the room first).
    func testAWriteErrorWaitsForRoomThenResumes() {
        var state = recordingA()
        XCTAssertEqual(outcome(state.ended(a, cameraRunning: true, storageFailed: true)), true)
        assertState(state, "starting (waiting for room on the disk)")
        XCTAssertFalse(state.cameraOpened(), "a camera opening does not make a file while there is no room")
        XCTAssertFalse(state.startContinuous(hasCamera: true), "already wanted")
        assertState(state, "starting (waiting for room on the disk)")
        XCTAssertTrue(state.roomReturned())
        assertState(state, "starting")
        XCTAssertFalse(state.roomReturned(), "only once")
        // No room after all (retention could not make it): back to waiting for room.
        state.makingFailed(noRoom: true)
        assertState(state, "starting (waiting for room on the disk)")
        if let step = try? state.stop() {
            XCTAssertNil(outcome(step) ?? nil, "no file to finalize")
        } else {
            XCTFail("a stop while waiting for room is refused")
        }
        assertState(state, "finishing")
        XCTAssertTrue(state.finished())
        assertState(state, "idle")

        var asked = recordingA()
        _ = asked.ended(a, cameraRunning: true, storageFailed: true)
        XCTAssertNil(refusal { () throws(State.Refusal) in try asked.start(hasCamera: true) })
        assertState(asked, "starting by request")
    }

    /// Other failures of a running camera still give the recording up; a failed camera still waits for the camera.
    func testOnlyAWriteErrorWaitsForRoom() {
        var state = recordingA()
        XCTAssertEqual(outcome(state.ended(a, cameraRunning: true)), true)
        assertState(state, "idle")
        var lost = recordingA()
        XCTAssertEqual(outcome(lost.ended(a, cameraRunning: false, storageFailed: true)), true)
        assertState(lost, "starting (waiting for the camera)")
    }
}
