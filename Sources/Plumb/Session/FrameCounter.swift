import Synchronization

/// Counts the frames entering the tee (a probe on its sink pad) and wakes whoever
/// waits for a number of them: the first frame at start-up, `--settle-frames N`.
final class FrameCounter: Sendable {
    private struct State {
        var count = 0
        var waiters: [(target: Int, shot: OneShot<Int>)] = []
    }

    private let state = Mutex(State())

    /// Called on the streaming thread for each frame; resolves due waiters (a hand-off).
    /// Returns the frame's number (1 for the first).
    @discardableResult
    func frame() -> Int {
        let (count, due): (Int, [(Int, OneShot<Int>)]) = state.withLock { s in
            s.count += 1
            let count = s.count
            let ready = s.waiters.filter { $0.target <= count }
            s.waiters.removeAll { $0.target <= count }
            return (count, ready.map { (count, $0.shot) })
        }
        for (count, shot) in due { shot.succeed(count) }
        return count
    }

    var count: Int { state.withLock { $0.count } }

    /// A one-shot resolved once `n` more frames have arrived.
    func after(_ n: Int) -> OneShot<Int> {
        let shot = OneShot<Int>()
        let ready: Int? = state.withLock { s in
            if n <= 0 { return s.count }
            s.waiters.append((s.count + n, shot))
            return nil
        }
        if let ready { shot.succeed(ready) }
        return shot
    }

    /// Fails every waiter (the session closed or failed).
    func failAll(_ error: any Error) {
        let waiters = state.withLock { s in
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.shot.fail(error) }
    }
}
