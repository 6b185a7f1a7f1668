import Foundation
import GStreamer
import Synchronization

/// A camera switch that changes the tee's caps (the new camera runs at another size or
/// rate): a muxer cannot take new caps in the middle of a file, so every running recording
/// goes on in a new file (`NAME-N.mp4`, the recording's next segment) that starts with the
/// new camera's first frame, and the old file is finalized and playable.
///
/// The next files' branches are built beside the running ones before the new source starts,
/// their tee pads not yet linked. A probe on the tee's sink pad waits for the new caps
/// event — after the old camera's last frame, before the new camera's first — and there, on
/// the streaming thread, links the new branches and unlinks the old ones: the old files
/// never see the new caps, the new files see nothing else. A recording whose next file
/// could not be built ends there instead (its file finalized), rather than fail on the caps.
final class CapsRoll: Sendable {
    struct Move: Sendable {
        let old: Branch
        let current: RecordingOutput
        /// The next file's output and branch; nil when it could not be built.
        let next: (output: RecordingOutput, branch: Branch)?
    }

    let moves: [Move]
    let done = OneShot<Void>()
    /// 0: waiting for the caps; 1: the probe swapped; 2: given up (whoever moves it decides).
    private let claim = Atomic<Int>(0)
    private let probe = Mutex<UInt?>(nil)
    private let teeSink: Pad

    init(moves: [Move], teeSink: Pad) {
        self.moves = moves
        self.teeSink = teeSink
        let id = teeSink.addProbe(.eventDownstream) { [weak self] info in
            guard info.isCaps else { return .ok }
            guard let self else { return .remove }
            self.swap()
            return .remove
        }
        probe.withLock { $0 = id }
    }

    /// On the streaming thread, before the tee passes the new caps on.
    private func swap() {
        guard claim.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        for move in moves {
            if let next = move.next {
                do {
                    try next.branch.teePad.link(to: next.branch.entry)
                } catch {
                    move.current.chain.record(failure: "could not link the next file after "
                                              + "\(move.current.url.lastPathComponent): \(error)")
                }
            }
            move.old.teePad.unlink(move.old.entry)
        }
        _ = done.succeed(())
    }

    /// Whether the probe swapped; if it has not yet, it never will (the probe is removed).
    func giveUp() -> Bool {
        guard claim.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        if let id = probe.withLock({ $0 }) { teeSink.removeProbe(id) }
        return true
    }
}

extension CaptureSession {
    /// Before a source whose caps differ from the tee's starts: builds each running
    /// recording's next file beside it and arms the swap at the new caps.
    func prepareRecordingsForNewCaps() -> CapsRoll? {
        guard let teeSink = tee?.staticPad("sink") else { return nil }
        var moves: [CapsRoll.Move] = []
        for branch in branches.values {
            guard let movie = branch.output as? RecordingOutput, !movie.chain.isStopping else { continue }
            var next: (RecordingOutput, Branch)?
            do {
                let output = try movie.makeSuccessor()
                let (built, _) = try buildBranch(for: output, linkedAtOnce: false)
                open(built)  // nothing flows into it until the swap links its tee pad
                next = (output, built)
            } catch {
                movie.chain.record(failure: "could not start a new file for the new camera after "
                                   + "\(movie.url.lastPathComponent), so the recording ends there: \(error)")
            }
            moves.append(CapsRoll.Move(old: branch, current: movie, next: next))
        }
        guard !moves.isEmpty else { return nil }
        return CapsRoll(moves: moves, teeSink: teeSink)
    }

    /// After the new source started: waits for the swap, then hands the old files to be
    /// finalized and the new ones to the recordings. A swap that never came (the new caps
    /// never arrived) is undone: the recordings go on in the files they have.
    func finish(_ roll: CapsRoll, timeout: Duration) async {
        let swapped = (try? await roll.done.value(timeout: timeout, what: "the new camera's caps")) != nil
        if !swapped, roll.giveUp() {
            for move in roll.moves { if let next = move.next { discardUnlinked(next.branch) } }
            return
        }
        for move in roll.moves {
            if let next = move.next {
                branches[ObjectIdentifier(next.output)] = next.branch
                next.output.didAttach(requestTime: pipeline?.runningTime)
                move.current.setSuccessor(next.output)
            }
            if branches.removeValue(forKey: ObjectIdentifier(move.current)) != nil {
                startTeardown(move.old, drain: true, error: nil)
            }
        }
        // Closed or failed meanwhile: the new branches are not among those it took down.
        if phase != .running {
            for move in roll.moves {
                if let next = move.next, branches.removeValue(forKey: ObjectIdentifier(next.output)) != nil {
                    startTeardown(next.branch, drain: true, error: nil)
                }
            }
        }
    }
}
