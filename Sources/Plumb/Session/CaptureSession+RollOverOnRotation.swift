import FoundationEssentials
import Glibc
import GStreamer

/// Recordings that split on rotation (`RecordingOptions.splitOnRotation`): when the capture
/// angle changes, the recording rolls over to its next segment (`rollOverNow`, the same roll
/// as a timed one), whose encoder's first frame is a keyframe and whose matrix is the new
/// angle. The old branch is then drained (its file finalized) and taken down like any
/// detached output.
extension CaptureSession {
    /// Starts rolling every recording that splits on rotation and whose file has another
    /// angle over to a new file. One roll at a time per recording; a roll that finds the
    /// angle changed again when it is done makes another, so a storm ends on the final angle.
    func rollOverRecordingsIfTurned() {
        guard state.isRunning else { return }
        for branch in branches.values {
            guard let segment = branch.output as? RecordingOutput, segment.options.splitOnRotation,
                  let latched = segment.latchedRotation, latched != rotation, !segment.chain.isStopping else { continue }
            let chain = segment.chain
            let key = ObjectIdentifier(chain)
            guard rolls[key] == nil else { continue }  // the roll under way looks again when done
            rolls[key] = Task {
                do {
                    _ = try await self.rollOverNow(chain, to: nil, fileLength: nil)
                    self.rolls[key] = nil
                    self.rollOverRecordingsIfTurned()
                } catch {
                    // The recording goes on in the file it has: nothing is lost, only the angle is stale.
                    chain.record(failure: "could not start a new file for \(self.rotation) after "
                                 + "\(segment.url.lastPathComponent): \(error)")
                    self.rolls[key] = nil
                }
            }
        }
    }
}
