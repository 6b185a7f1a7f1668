import Foundation
import GStreamer
import Synchronization

/// Recordings that split on rotation (`RecordingOptions.splitOnRotation`): when the capture
/// angle changes, the recording moves to a new file with the new angle.
///
/// The next file is a new `RecordingOutput` on a branch built complete beside the running one
/// (its encoder's first frame is a keyframe, its matrix the new angle), with a tee pad of
/// its own not yet linked. Then, in a probe on the tee's *sink* pad — where a frame waits
/// before the tee pushes it to any branch — the new pad is linked and the old one unlinked:
/// every frame up to there went to the old file, every frame from there on goes to the
/// new one, none to both and none to neither. The old branch is then drained (its file
/// finalized) and taken down like any detached output.
extension CaptureSession {
    /// Starts moving every recording that splits on rotation and whose file has another
    /// angle to a new file. One move at a time per recording; a move that finds the angle
    /// changed again when it is done makes another, so a storm ends on the final angle.
    func rollOverRecordingsIfTurned() {
        guard phase == .running else { return }
        for branch in branches.values {
            guard let movie = branch.output as? RecordingOutput, movie.options.splitOnRotation,
                  let latched = movie.latchedRotation, latched != rotation, !movie.chain.isStopping else { continue }
            let key = ObjectIdentifier(movie.chain)
            guard splits[key] == nil else { continue }  // the move under way looks again when done
            splits[key] = Task {
                await self.split(from: movie)
                self.splits[key] = nil
            }
        }
    }

    /// Marks a recording as stopping (no new file from now on) and waits for a move under way.
    func stopRollingOverOnRotation(_ first: RecordingOutput) async {
        first.chain.stop()
        await splits[ObjectIdentifier(first.chain)]?.value
    }

    /// Moves the recording from `movie`'s file to new ones until its file has the current angle.
    private func split(from movie: RecordingOutput) async {
        var current = movie
        while phase == .running, !current.chain.isStopping, let old = branches[ObjectIdentifier(current)],
              let latched = current.latchedRotation, latched != rotation {
            do {
                current = try await moveToNextFile(from: old, current)
            } catch {
                // The recording goes on in the file it has: nothing is lost, only the angle is stale.
                current.chain.record(failure: "could not start a new file for \(rotation) after "
                                     + "\(current.url.lastPathComponent): \(error)")
                return
            }
        }
    }

    /// One move: builds the next file's branch, swaps the frames over at a frame boundary,
    /// then drains the old branch in the background. Returns the new file's output.
    private func moveToNextFile(from old: Branch, _ movie: RecordingOutput) async throws -> RecordingOutput {
        guard pipeline != nil, tee != nil else { throw CaptureError.closed }
        let next = try movie.makeSuccessor()
        try await rollOver(from: old, of: movie, to: next)
        movie.setSuccessor(next)
        return next
    }

    /// Moves the frames from `old` (the branch of `current`) to a new branch for `next`
    /// between two frames, then drains the old branch in the background. Shared by a split
    /// on rotation and `rollOver(_:to:)`.
    func rollOver(from old: Branch, of current: RecordingOutput, to next: RecordingOutput,
                  notBefore boundary: ClockTime? = nil) async throws {
        // A camera switch under way may move this recording to a new file itself (new caps):
        // wait for it, then roll only a file it left running.
        while isSwitchingCamera { try await Task.sleep(for: .milliseconds(10)) }
        guard branches[ObjectIdentifier(current)] === old else {
            throw CaptureError.notAttached("the recording to \(current.url.lastPathComponent) (it moved to a new camera's file)")
        }
        rollsInFlight += 1
        defer { rollsInFlight -= 1 }
        guard let pipeline, let teeSink = tee?.staticPad("sink") else { throw CaptureError.closed }
        let (branch, _) = try buildBranch(for: next, linkedAtOnce: false)
        open(branch)  // nothing flows into it until `swap` links its tee pad
        do {
            try await swap(at: teeSink, from: old, to: branch, notBefore: boundary)
        } catch {
            discardUnlinked(branch)
            throw error
        }
        branches[ObjectIdentifier(next)] = branch
        next.didAttach(requestTime: pipeline.runningTime)
        // The old branch gets no frame any more (its tee pad is unlinked): drain it.
        if branches.removeValue(forKey: ObjectIdentifier(current)) != nil {
            startTeardown(old, drain: true, error: nil)
        }
        // The session may have closed or failed while the swap waited for a frame: then the
        // new branch is not among those it takes down.
        if phase != .running, branches.removeValue(forKey: ObjectIdentifier(next)) != nil {
            startTeardown(branch, drain: true, error: nil)
        }
    }

    /// Links `new`'s tee pad and unlinks `old`'s in one step, between two frames; with
    /// `boundary`, before the first frame whose running time reaches it (within half a
    /// frame, so timestamp jitter cannot push the cut one frame on).
    func swap(at teeSink: Pad, from old: Branch, to new: Branch, notBefore boundary: ClockTime? = nil) async throws {
        let oldPad = old.teePad, oldEntry = old.entry, newPad = new.teePad, newEntry = new.entry
        let swapped = OneShot<Void>()
        // 0: waiting for a frame; 1: the probe swapped (or failed); 2: given up. Whoever
        // moves it from 0 decides, so a late frame cannot swap after the wait gave up.
        let claim = Atomic<Int>(0)
        let probe = teeSink.addProbe(.buffer) { info in
            // The streaming thread, before the tee pushes this frame anywhere: linking and
            // unlinking its source pads here splits the stream exactly at this frame.
            if let boundary, let pts = info.bufferPTS, let time = teeSink.runningTime(of: pts),
               time + (info.bufferDuration ?? 0) / 2 < boundary {
                return .ok  // still the old file's
            }
            guard claim.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
            else { return .remove }
            do {
                try newPad.link(to: newEntry)
            } catch {
                swapped.fail(error)
                return .remove
            }
            oldPad.unlink(oldEntry)
            swapped.succeed(())
            return .remove
        }
        // A camera that stops sending frames must not hold the recording forever.
        var limit = Duration.seconds(5)
        if let boundary, let now = pipeline?.runningTime, boundary > now {
            limit += .nanoseconds(Int64(min(boundary - now, 3600 * ClockTime.second)))
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            if claim.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged {
                teeSink.removeProbe(probe)
                swapped.fail(CaptureError.timedOut("the next frame to start the new file on", limit))
            }
        }
        defer { timer.cancel() }
        try await swapped.value()
    }

    /// Takes down a built branch that never got a frame (its swap failed), and the empty
    /// file its sink opened.
    func discardUnlinked(_ branch: Branch) {
        discard(branch.head, teePad: branch.teePad, of: branch.output)
        branch.output.didDetach(error: CaptureError.closed)
    }
}
