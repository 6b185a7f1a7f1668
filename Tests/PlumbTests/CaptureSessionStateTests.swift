@testable import Plumb
import XCTest

/// The capture session's one state, event by event (its table in `CaptureSessionState`),
/// in the orders a running session can bring them: a roll asked for during a camera switch,
/// a switch asked for during rolls, a failure or a close while either waits. Orders that are
/// hard to bring about with a real camera are exact here; `SwitchCameraTests` and
/// `SplitOnRotationTests` drive the same transitions with a real pipeline.
final class CaptureSessionStateTests: XCTestCase {
    typealias State = CaptureSessionState

    private func running(rolls: Int = 0) -> State {
        var state = State.starting
        XCTAssertTrue(state.opened())
        for _ in 0..<rolls { guard case .go = state.startRoll() else { XCTFail("\(state)"); break } }
        return state
    }

    func testOpeningRunsAndOnlyOnce() {
        var state = State.starting
        XCTAssertFalse(state.isRunning)
        XCTAssertTrue(state.opened())
        XCTAssertEqual(state.description, "running(rolls: 0)")
        XCTAssertTrue(state.isRunning)
        XCTAssertFalse(state.opened(), "a running session opens no second time")
        XCTAssertEqual(state.description, "running(rolls: 0)")
    }

    func testRollsCountUpAndDownWhileRunning() {
        var state = running()
        guard case .go = state.startRoll(), case .go = state.startRoll() else { return XCTFail("\(state)") }
        XCTAssertEqual(state.description, "running(rolls: 2)")
        XCTAssertNil(state.endRoll())
        XCTAssertNil(state.endRoll())
        XCTAssertEqual(state.description, "running(rolls: 0)")
        XCTAssertFalse(state.isSwitchingCamera)
    }

    func testRollIsRefusedBeforeOpeningAndAfterFailure() {
        var state = State.starting
        guard case .refused(.closed) = state.startRoll() else { return XCTFail("a starting session rolls nothing") }
        state = running()
        XCTAssertEqual(state.fail(.timedOut("frames", .seconds(1)))?.count, 0)
        guard case .refused(.timedOut) = state.startRoll() else { return XCTFail("a failed session names its failure") }
        guard case .timedOut("frames", .seconds(1))? = state.failure else { return XCTFail("\(state)") }
    }

    func testSwitchWithoutRollsGoesAtOnceAndOneAtATime() {
        var state = running()
        guard case .go = state.startSwitch() else { return XCTFail("\(state)") }
        XCTAssertTrue(state.isSwitchingCamera)
        XCTAssertTrue(state.isRunning, "frames still count as flowing during a switch")
        guard case .busy = state.startSwitch() else { return XCTFail("a second switch must be refused") }
        XCTAssertEqual(state.endSwitch().count, 0)
        XCTAssertEqual(state.description, "running(rolls: 0)")
        XCTAssertFalse(state.isSwitchingCamera)
    }

    func testRollAskedForDuringSwitchWaitsAndIsWokenWhenItEnds() {
        var state = running()
        guard case .go = state.startSwitch() else { return XCTFail("\(state)") }
        guard case .wait(let wake) = state.startRoll() else { return XCTFail("a roll must wait for the switch") }
        XCTAssertEqual(state.description, "switching(queued: 1)")
        let woken = state.endSwitch()
        XCTAssertEqual(woken.count, 1)
        XCTAssertTrue(woken.first === wake)
        // Woken, the roll asks again and goes.
        guard case .go = state.startRoll() else { return XCTFail("\(state)") }
        XCTAssertEqual(state.description, "running(rolls: 1)")
    }

    func testSwitchWaitsForRollsAndGoesWhenTheLastEnds() {
        var state = running(rolls: 2)
        guard case .waitForRolls(let ready) = state.startSwitch() else { return XCTFail("\(state)") }
        XCTAssertTrue(state.isSwitchingCamera, "a stall watchdog must already know")
        // A roll asked for now waits for the switch: it would otherwise hold the switch off.
        guard case .wait = state.startRoll() else { return XCTFail("\(state)") }
        XCTAssertEqual(state.description, "awaitingSwitch(rolls: 2, queued: 1)")
        XCTAssertNil(state.endRoll())
        XCTAssertTrue(state.endRoll() === ready, "the last roll lets the switch go")
        XCTAssertEqual(state.description, "switching(queued: 1)")
        guard case .go = state.switchWaitEnded() else { return XCTFail("the rolls ended in time: switch") }
        XCTAssertEqual(state.endSwitch().count, 1)
        XCTAssertEqual(state.description, "running(rolls: 0)")
    }

    func testSwitchThatGivesUpWaitingLeavesTheRollsRunningAndWakesTheQueued() {
        var state = running(rolls: 1)
        guard case .waitForRolls = state.startSwitch() else { return XCTFail("\(state)") }
        guard case .wait(let queued) = state.startRoll() else { return XCTFail("\(state)") }
        guard case .gaveUp(let wake) = state.switchWaitEnded() else { return XCTFail("\(state)") }
        XCTAssertTrue(wake.first === queued)
        XCTAssertEqual(state.description, "running(rolls: 1)")
        XCTAssertFalse(state.isSwitchingCamera)
        XCTAssertNil(state.endRoll())
        XCTAssertEqual(state.description, "running(rolls: 0)")
    }

    func testFailureWakesEveryWaiterAndRefusesThemAfterwards() {
        var state = running(rolls: 1)
        guard case .waitForRolls(let ready) = state.startSwitch(),
              case .wait(let queued) = state.startRoll() else { return XCTFail("\(state)") }
        let woken = state.fail(.closed) ?? []
        XCTAssertTrue(woken.contains { $0 === ready } && woken.contains { $0 === queued })
        XCTAssertNil(state.fail(.closed), "a failed session fails once")
        XCTAssertFalse(state.isRunning)
        XCTAssertNil(state.endRoll(), "the roll under way ends into nothing")
        guard case .refused = state.switchWaitEnded() else { return XCTFail("the woken switch must stop") }
        guard case .refused = state.startRoll() else { return XCTFail("the woken roll must stop") }
        XCTAssertEqual(state.description, "failed")
    }

    func testCloseKeepsTheFailureAndHappensOnce() {
        var state = running()
        _ = state.fail(.timedOut("frames", .seconds(2)))
        XCTAssertEqual(state.close()?.count, 0)
        XCTAssertTrue(state.isClosed)
        guard case .timedOut("frames", .seconds(2))? = state.failure else {
            return XCTFail("close keeps what the session died of: \(state)")
        }
        XCTAssertNil(state.close())
        var clean = running()
        guard case .go = clean.startSwitch(), case .wait(let queued) = clean.startRoll() else { return XCTFail() }
        XCTAssertTrue(clean.close()?.first === queued)
        XCTAssertNil(clean.failure)
        XCTAssertEqual(clean.endSwitch().count, 0, "a switch ending after the close changes nothing")
        XCTAssertEqual(clean.description, "closed")
    }
}
