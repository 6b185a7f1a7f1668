import GStreamer
import Synchronization

/// Counts the frames entering the tee (a probe on its sink pad) and those missing between
/// them (`FrameGaps`: the camera dropped them, or they were lost before the tee), and wakes
/// whoever waits for a number of frames: the first frame at start-up, `--settle-frames N`.
final class FrameCounter: Sendable {
    private struct State {
        var count = 0
        var gaps = FrameGaps(rate: FrameRate(30))
        var waiters: [(target: Int, shot: OneShot<Int>)] = []
    }

    private let state = Mutex(State())

    /// Called on the streaming thread for each frame; resolves due waiters (a hand-off).
    /// Returns the frame's number (1 for the first).
    @discardableResult
    func frame(offset: UInt64? = nil, time: ClockTime? = nil) -> Int {
        let (count, due): (Int, [(Int, OneShot<Int>)]) = state.withLock { s in
            s.count += 1
            s.gaps.add(offset: offset, time: time)
            let count = s.count
            let ready = s.waiters.filter { $0.target <= count }
            s.waiters.removeAll { $0.target <= count }
            return (count, ready.map { (count, $0.shot) })
        }
        for (count, shot) in due { shot.succeed(count) }
        return count
    }

    var count: Int { state.withLock { $0.count } }

    /// Frames missing between those that entered the tee, since the camera opened.
    var lost: Int { state.withLock { $0.gaps.lost } }

    /// The next frame comes from a new source, or at `rate`: the step to it is no loss.
    /// `numbered`: its offsets are its driver's frame numbers (`FrameGaps.numbered`).
    func restartGaps(rate: FrameRate, numbered: Bool) { state.withLock { $0.gaps.restart(rate: rate, numbered: numbered) } }

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
