import FoundationEssentials
import Glibc
import GStreamer

/// Rolling recordings over to their next segments (`FileSwap`): the session's side —
/// building the next files' branches, and taking the swap's outcome into the branches it keeps.
extension CaptureSession {
    /// Rolls the recording writing `current` over to `next` at the next frame (with
    /// `boundary`, the first frame whose running time reaches it), then drains the old
    /// branch in the background. A timed roll and a roll on rotation both come here
    /// (`rollOverNow`), as a roll of the session (`CaptureSessionState.startRoll`: never
    /// during a camera switch).
    /// - Throws: `CaptureError.notAttached` when `current` is no longer written (a camera
    ///   switch moved it meanwhile), what building the branch threw, `CaptureError.timedOut`
    ///   when no frame came; the recording then goes on in the file it has.
    func rollOver(from current: RecordingOutput, to next: RecordingOutput,
                        notBefore boundary: ClockTime? = nil) async throws {
        guard let old = branches[ObjectIdentifier(current)] else {
            throw CaptureError.notAttached("the recording to \(current.url.lastPathComponent) (it moved to a new camera's file)")
        }
        guard let teeSink = tee?.staticPad("sink") else { throw CaptureError.closed }
        let move = try prepareMove(from: old, of: current, to: next)
        let swap = FileSwap(moves: [move], cut: .frame(notBefore: boundary), teeSink: teeSink)
        // A camera that stops sending frames must not hold the recording forever.
        var limit = Duration.seconds(5)
        if let boundary, let now = pipeline?.runningTime, boundary > now {
            limit += .nanoseconds(Int64(min(boundary - now, 3600 * ClockTime.second)))
        }
        let outcomes = await complete(swap, within: limit, what: "the next frame to start the new file on")
        switch outcomes?.first {
        case .moved?: return
        case .failed(let error)?: throw error
        case .ended?, nil: throw CaptureError.timedOut("the next frame to start the new file on", limit)
        }
    }

    /// Runs `body` as a roll (`CaptureSessionState.startRoll`): a camera switch under way
    /// finishes first (it may move the recording itself), and none starts until it is done.
    func asRollOver<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            switch state.startRoll() {
            case .go:
                defer { state.endRoll()?.succeed(()) }
                return try await body()
            case .wait(let switchDone):
                try await switchDone.value()
            case .refused(let error):
                throw error
            }
        }
    }

    /// Before a source whose caps differ from the tee's starts: builds each running
    /// recording's next file beside it and arms the swap at the new caps (`FileSwap.Cut.caps`).
    /// A recording whose next file cannot be built ends at the cut instead.
    func prepareRollOversForNewCaps() -> FileSwap? {
        guard let teeSink = tee?.staticPad("sink") else { return nil }
        var moves: [FileSwap.Move] = []
        for branch in branches.values {
            guard let segment = branch.output as? RecordingOutput, !segment.chain.isStopping else { continue }
            do {
                moves.append(try prepareMove(from: branch, of: segment, to: segment.nextSegment()))
            } catch {
                segment.chain.record(failure: "could not start a new file for the new camera after "
                                     + "\(segment.url.lastPathComponent), so the recording ends there: \(error)")
                moves.append(FileSwap.Move(old: branch, current: segment, next: nil))
            }
        }
        guard !moves.isEmpty else { return nil }
        return FileSwap(moves: moves, cut: .caps, teeSink: teeSink)
    }

    /// Builds `next`'s branch beside `old` (the branch writing `current`), open but unlinked:
    /// nothing flows into it until the swap links its tee pad.
    private func prepareMove(from old: Branch, of current: RecordingOutput,
                             to next: RecordingOutput) throws -> FileSwap.Move {
        let (branch, _) = try buildBranch(for: next, linkedAtOnce: false)
        open(branch)
        return FileSwap.Move(old: old, current: current, next: (next, branch))
    }

    /// Waits at most `timeout` for `swap`'s cut, then takes its outcome in: each new branch
    /// among the session's (its file the recording's next segment, `RecordingChain.rolledOver`),
    /// each old branch drained in the background, each next file that gets no
    /// frame discarded. No cut in time: every next file is discarded and the recordings go
    /// on in the files they have (nil returned).
    @discardableResult
    func complete(_ swap: FileSwap, within timeout: Duration, what: String) async -> [FileSwap.Outcome]? {
        guard let outcomes = await swap.outcomes(within: timeout, what: what) else {
            for move in swap.moves { if let next = move.next { discardUnlinked(next.branch) } }
            return nil
        }
        for (move, outcome) in zip(swap.moves, outcomes) {
            switch outcome {
            case .moved:
                guard let next = move.next else { continue }
                branches[ObjectIdentifier(next.output)] = next.branch
                next.output.didAttach(requestTime: pipeline?.runningTime)
                move.current.chain.rolledOver(to: next.output)
            case .failed(let error):
                if let next = move.next { discardUnlinked(next.branch) }
                if case .caps = swap.cut {
                    move.current.chain.record(failure: "could not link the next file after "
                                              + "\(move.current.url.lastPathComponent): \(error)")
                }
                guard case .caps = swap.cut else { continue }  // a frame cut left the old file linked
            case .ended:
                break
            }
            // The old branch gets no frame any more (its tee pad is unlinked): drain it.
            if branches.removeValue(forKey: ObjectIdentifier(move.current)) != nil {
                startTeardown(move.old, drain: true, error: nil)
            }
        }
        // The session may have closed or failed while the swap waited for its cut: then the
        // new branches are not among those it takes down.
        if !state.isRunning {
            for move in swap.moves {
                if let next = move.next, branches.removeValue(forKey: ObjectIdentifier(next.output)) != nil {
                    startTeardown(next.branch, drain: true, error: nil)
                }
            }
        }
        return outcomes
    }

    /// Takes down a built branch that never got a frame (its swap did not come), and the
    /// empty file its sink opened.
    func discardUnlinked(_ branch: Branch) {
        discard(branch.head, teePad: branch.teePad, of: branch.output)
        branch.output.didDetach(error: CaptureError.closed)
    }
}
