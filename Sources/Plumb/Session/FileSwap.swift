import GStreamer
import Synchronization

/// The one way a recording moves to its next file, whatever moves it: a timed segment
/// (`CaptureSession.rollOver(_:to:fileLength:)`), a turn (`RecordingOptions.splitOnRotation`),
/// or a camera switch that changes the caps.
///
/// Each next file's branch is built complete beside the running one, its tee pad not yet
/// linked. A probe on the tee's *sink* pad — where a frame or an event waits before the
/// tee passes it to any branch — then links the new pads and unlinks the old ones in one
/// step, on the streaming thread: every frame up to there went to the old file, every frame
/// from there on goes to the new one, none to both and none to neither. Where it cuts:
/// - `frame(notBefore:)`: before the next frame (whose running time reaches the boundary,
///   within half a frame, so timestamp jitter cannot push the cut one frame on);
/// - `caps`: at the new camera's caps event — after the old camera's last frame, before
///   the new one's first: the old files never see the new caps, the new files see nothing
///   else.
///
/// The probe and a waiter that gives up race for the decision (`Stage`): whoever moves it
/// from `armed` decides, so a late frame cannot swap after the wait gave up.
final class FileSwap: Sendable {
    enum Cut: Sendable {
        case frame(notBefore: ClockTime?)
        case caps
    }

    /// One recording's move: from `old` (the branch writing `current`) to `next`.
    struct Move: Sendable {
        let old: Branch
        let current: RecordingOutput
        /// The next file's output and branch; nil when it could not be built (at new caps
        /// the recording then ends at the cut, rather than fail on the caps).
        let next: (output: RecordingOutput, branch: Branch)?
    }

    /// How a move came out at the cut.
    enum Outcome: Sendable {
        /// The frames go to the next file.
        case moved
        /// The next file's pad could not be linked: at a frame cut the recording stays in
        /// its file; at new caps it ends there (the old file must not see them).
        case failed(any Error)
        /// No next file (it could not be built): the recording ends at the cut.
        case ended
    }

    private enum Stage {
        /// Waiting for the cut; the probe's id once added.
        case armed(probe: UInt?)
        /// The probe claimed the cut (its outcomes follow in `swapped`).
        case swapping
        /// The waiter gave up first: nothing was swapped, and nothing will be.
        case abandoned
    }

    let moves: [Move]
    let cut: Cut
    /// Resolved when the cut comes (or fails at a waiter's deadline).
    private let cutCame = OneShot<Void>()
    /// The outcomes, once the probe has swapped.
    private let swapped = OneShot<[Outcome]>()
    private let stage = Mutex(Stage.armed(probe: nil))
    private let teeSink: Pad

    /// Arms the swap on the tee's sink pad.
    init(moves: [Move], cut: Cut, teeSink: Pad) {
        self.moves = moves
        self.cut = cut
        self.teeSink = teeSink
        let id: UInt
        switch cut {
        case .frame(let boundary):
            id = teeSink.addProbe(.buffer) { [weak self] info in
                if let boundary, let pts = info.bufferPTS, let time = teeSink.runningTime(of: pts),
                   time + (info.bufferDuration ?? 0) / 2 < boundary {
                    return .ok  // still the old file's
                }
                self?.swap()
                return .remove
            }
        case .caps:
            id = teeSink.addProbe(.eventDownstream) { [weak self] info in
                guard info.isCaps else { return .ok }
                self?.swap()
                return .remove
            }
        }
        stage.withLock { s in
            if case .armed = s { s = .armed(probe: id) }
        }
    }

    /// On the streaming thread, before the tee passes the frame or the caps on.
    private func swap() {
        let claimed = stage.withLock { s -> Bool in
            guard case .armed = s else { return false }
            s = .swapping
            return true
        }
        guard claimed else { return }
        let outcomes = moves.map { move -> Outcome in
            guard let next = move.next else {
                move.old.teePad.unlink(move.old.entry)
                return .ended
            }
            do {
                try next.branch.teePad.link(to: next.branch.entry)
            } catch {
                if case .caps = cut { move.old.teePad.unlink(move.old.entry) }
                return .failed(error)
            }
            move.old.teePad.unlink(move.old.entry)
            return .moved
        }
        swapped.succeed(outcomes)
        cutCame.succeed(())
    }

    /// Waits at most `timeout` for the cut. The outcomes, one per move; nil when no cut
    /// came in time (then none ever will: the probe is removed).
    func outcomes(within timeout: Duration, what: String) async -> [Outcome]? {
        _ = try? await cutCame.value(timeout: timeout, what: what)
        let (claimed, probe): (Bool, UInt?) = stage.withLock { s in
            switch s {
            case .armed(let probe):
                s = .abandoned
                return (false, probe)
            case .swapping:
                return (true, nil)
            case .abandoned:
                return (false, nil)
            }
        }
        if let probe { teeSink.removeProbe(probe) }
        // Claimed: the probe is linking right now, and resolves `swapped` in a moment.
        return claimed ? try? await swapped.value() : nil
    }
}
