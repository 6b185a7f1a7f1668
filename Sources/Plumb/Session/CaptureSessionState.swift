/// What a `CaptureSession` is doing, as one value (as the continuous recorder keeps its
/// `RecorderState`, in the style of swift-nio's state machines): no mix of flags can say two
/// things at once. Every event is a mutating method that says what to do next; the session
/// does it. Nothing here touches GStreamer, so the table is tested on its own.
///
/// | from | event | to | the session then |
/// |---|---|---|---|
/// | starting | opened | running(0) | |
/// | running(n) | startRoll | running(n+1) | moves the recording |
/// | awaitingSwitch, switching | startRoll | the same, the roll queued | waits for the switch, then asks again |
/// | running(n) | endRoll | running(n-1) | |
/// | awaitingSwitch(1) | endRoll | switching | lets the switch go |
/// | running(0) | startSwitch | switching | switches |
/// | running(n>0) | startSwitch | awaitingSwitch(n) | waits for the rolls (at most a limit) |
/// | awaitingSwitch, switching | startSwitch | the same | refuses: one switch at a time |
/// | awaitingSwitch | switchWaitEnded | running(n) | refuses the switch, wakes the queued rolls |
/// | switching | switchWaitEnded | switching | switches (the rolls ended in time) |
/// | switching | endSwitch | running(0) | wakes the queued rolls |
/// | starting, running, awaitingSwitch, switching | fail | failed | drains the branches, wakes every waiter |
/// | any but closed | close | closed | takes everything down, wakes every waiter |
///
/// A recording moving to its next file (a timed segment, a split on rotation) and a camera
/// switch never overlap: a switch that changes the caps moves every recording itself, and a
/// roll must not move one a second time. A waiter woken asks again (`startRoll`, or reads the
/// state after `awaitingSwitch`): the state it wakes to may be failed or closed.
enum CaptureSessionState {
    /// The camera is opening; no frame yet.
    case starting
    /// Frames flow; `rolls` recordings are moving to their next file.
    case running(rolls: Int)
    /// A camera switch waits for the `rolls` under way to end (`ready` then); the rolls asked
    /// for meanwhile wait for the switch (`queued`).
    case awaitingSwitch(rolls: Int, ready: OneShot<Void>, queued: [OneShot<Void>])
    /// A camera switch runs; the rolls asked for meanwhile wait for it.
    case switching(queued: [OneShot<Void>])
    /// The camera side failed (the branches are drained).
    case failed(CaptureError)
    /// Closed, after running or after `failure`.
    case closed(failure: CaptureError?)

    /// What to do about a roll asked for.
    enum RollStart {
        /// Move the recording now; `endRoll` when done.
        case go
        /// A switch is under way: wait for this, then ask again.
        case wait(OneShot<Void>)
        /// The session does not run: throw this.
        case refused(CaptureError)
    }

    /// What to do about a camera switch asked for.
    enum SwitchStart {
        /// Switch now; `endSwitch` when done.
        case go
        /// Rolls are under way: wait for this (at most a limit), then `switchWaitEnded`.
        case waitForRolls(OneShot<Void>)
        /// Another switch is under way.
        case busy
        /// The session does not run: throw this.
        case refused(CaptureError)
    }

    /// What a switch that stopped waiting for the rolls does.
    enum SwitchWait {
        /// The rolls ended meanwhile: switch now.
        case go
        /// Refuse the switch; wake these (the queued rolls).
        case gaveUp(wake: [OneShot<Void>])
        /// The session stopped running while the switch waited.
        case refused(CaptureError)
    }

    /// Whether frames flow (a switch or a roll under way included).
    var isRunning: Bool {
        switch self {
        case .running, .awaitingSwitch, .switching: true
        case .starting, .failed, .closed: false
        }
    }

    /// Whether a camera switch is asked for or under way (AVCam's `isSwitchingVideoDevices`).
    var isSwitchingCamera: Bool {
        switch self {
        case .awaitingSwitch, .switching: true
        case .starting, .running, .failed, .closed: false
        }
    }

    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// What the session failed of; nil while it runs, and after a close of a running session.
    var failure: CaptureError? {
        switch self {
        case .failed(let error): error
        case .closed(let failure): failure
        case .starting, .running, .awaitingSwitch, .switching: nil
        }
    }

    /// The error to give a request while the session does not run.
    private var refusal: CaptureError { failure ?? .closed }

    // MARK: Opening, failing, closing

    /// The first frame arrived. False: the session failed or closed meanwhile.
    mutating func opened() -> Bool {
        guard case .starting = self else { return false }
        self = .running(rolls: 0)
        return true
    }

    /// The camera side failed. The waiters to wake; nil when it had failed or closed already.
    mutating func fail(_ error: CaptureError) -> [OneShot<Void>]? {
        switch self {
        case .starting, .running, .awaitingSwitch, .switching: break
        case .failed, .closed: return nil
        }
        let waiters = self.waiters
        self = .failed(error)
        return waiters
    }

    /// `close()`. The waiters to wake; nil when it was closed already.
    mutating func close() -> [OneShot<Void>]? {
        guard !isClosed else { return nil }
        let waiters = self.waiters
        self = .closed(failure: failure)
        return waiters
    }

    /// Everyone waiting on this state: the queued rolls and a switch waiting for rolls.
    private var waiters: [OneShot<Void>] {
        switch self {
        case .awaitingSwitch(_, let ready, let queued): [ready] + queued
        case .switching(let queued): queued
        case .starting, .running, .failed, .closed: []
        }
    }

    // MARK: Rolls

    /// A recording is to move to its next file.
    mutating func startRoll() -> RollStart {
        switch self {
        case .running(let rolls):
            self = .running(rolls: rolls + 1)
            return .go
        case .awaitingSwitch(let rolls, let ready, var queued):
            let wake = OneShot<Void>()
            queued.append(wake)
            self = .awaitingSwitch(rolls: rolls, ready: ready, queued: queued)
            return .wait(wake)
        case .switching(var queued):
            let wake = OneShot<Void>()
            queued.append(wake)
            self = .switching(queued: queued)
            return .wait(wake)
        case .starting, .failed, .closed:
            return .refused(refusal)
        }
    }

    /// A roll ended (moved, or failed to). The switch to let go now, if one waited for it.
    mutating func endRoll() -> OneShot<Void>? {
        switch self {
        case .running(let rolls):
            self = .running(rolls: max(0, rolls - 1))
            return nil
        case .awaitingSwitch(let rolls, let ready, let queued):
            guard rolls <= 1 else {
                self = .awaitingSwitch(rolls: rolls - 1, ready: ready, queued: queued)
                return nil
            }
            self = .switching(queued: queued)
            return ready
        case .starting, .switching, .failed, .closed:
            return nil
        }
    }

    // MARK: Camera switches

    /// A camera switch is asked for.
    mutating func startSwitch() -> SwitchStart {
        switch self {
        case .running(0):
            self = .switching(queued: [])
            return .go
        case .running(let rolls):
            let ready = OneShot<Void>()
            self = .awaitingSwitch(rolls: rolls, ready: ready, queued: [])
            return .waitForRolls(ready)
        case .awaitingSwitch, .switching:
            return .busy
        case .starting, .failed, .closed:
            return .refused(refusal)
        }
    }

    /// A switch's wait for the rolls ended: `ready` came, or its limit passed.
    mutating func switchWaitEnded() -> SwitchWait {
        switch self {
        case .awaitingSwitch(let rolls, _, let queued):
            self = .running(rolls: rolls)
            return .gaveUp(wake: queued)
        case .switching:
            return .go
        case .starting, .running, .failed, .closed:
            return .refused(refusal)
        }
    }

    /// The switch is done (or failed). The queued rolls to wake.
    mutating func endSwitch() -> [OneShot<Void>] {
        guard case .switching(let queued) = self else { return [] }
        self = .running(rolls: 0)
        return queued
    }
}

extension CaptureSessionState: CustomStringConvertible {
    /// The state's name, for messages and tests.
    var description: String {
        switch self {
        case .starting: "starting"
        case .running(let rolls): "running(rolls: \(rolls))"
        case .awaitingSwitch(let rolls, _, let queued): "awaitingSwitch(rolls: \(rolls), queued: \(queued.count))"
        case .switching(let queued): "switching(queued: \(queued.count))"
        case .failed: "failed"
        case .closed(let failure): failure == nil ? "closed" : "closed(after failure)"
        }
    }
}
