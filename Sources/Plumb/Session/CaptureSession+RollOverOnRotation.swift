import Foundation
import GStreamer

/// Recordings that split on rotation (`RecordingOptions.splitOnRotation`): when the capture
/// angle changes, the recording moves to a new file with the new angle (`FileSwap`, at the
/// next frame). The next file is the recording's next segment (`RecordingOutput.successor`):
/// its encoder's first frame is a keyframe, its matrix the new angle. The old branch is then
/// drained (its file finalized) and taken down like any detached output.
extension CaptureSession {
    /// Starts moving every recording that splits on rotation and whose file has another
    /// angle to a new file. One move at a time per recording; a move that finds the angle
    /// changed again when it is done makes another, so a storm ends on the final angle.
    func rollOverRecordingsIfTurned() {
        guard state.isRunning else { return }
        for branch in branches.values {
            guard let movie = branch.output as? RecordingOutput, movie.options.splitOnRotation,
                  let latched = movie.latchedRotation, latched != rotation, !movie.chain.isStopping else { continue }
            let key = ObjectIdentifier(movie.chain)
            guard turnRolls[key] == nil else { continue }  // the move under way looks again when done
            turnRolls[key] = Task {
                await self.rollOverWhileTurned(from: movie)
                self.turnRolls[key] = nil
            }
        }
    }

    /// Marks a recording as stopping (no new file from now on) and waits for a move under way.
    func stopRollingOverOnRotation(_ first: RecordingOutput) async {
        first.chain.stop()
        await turnRolls[ObjectIdentifier(first.chain)]?.value
    }

    /// Moves the recording from `movie`'s file to new ones until its file has the current angle.
    private func rollOverWhileTurned(from movie: RecordingOutput) async {
        var current = movie
        while state.isRunning, !current.chain.isStopping, branches[ObjectIdentifier(current)] != nil,
              let latched = current.latchedRotation, latched != rotation {
            do {
                let from = current
                current = try await asRollOver { () async throws -> RecordingOutput in
                    let next = try from.makeSuccessor()
                    try await rollOver(from: from, to: next)
                    return next
                }
            } catch {
                // The recording goes on in the file it has: nothing is lost, only the angle is stale.
                current.chain.record(failure: "could not start a new file for \(rotation) after "
                                     + "\(current.url.lastPathComponent): \(error)")
                return
            }
        }
    }
}
