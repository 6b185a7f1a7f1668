import Foundation
import GStreamer

/// A recording continued in a new file at a frame boundary, for `plumb serve`'s segments
/// (`[recording] segment-seconds`): the same move to the next file as a split on rotation
/// (`FileSwap`), asked for by the caller instead of by a turn.
extension CaptureSession {
    /// Moves `recording` on into a new file at `url`: the new file's branch is built
    /// complete beside the running one, then — between two frames, in a probe on the tee's
    /// sink pad — frames stop going to the old file and start going to the new one, none
    /// lost and none doubled. The new file starts with a keyframe and latches the current
    /// angle. The old file is finalized in the background; `recording.stop()` returns its
    /// facts once it is. The new file is a recording of its own, returned.
    ///
    /// With `fileLength`, the new file starts at the first frame `fileLength` after the
    /// current file's first (by the frames' running time) — the new branch is built first,
    /// so a caller that asks a little early gets files of exact length however long the
    /// building took on a loaded machine.
    ///
    /// A split on rotation under way finishes first; the old recording rolls over on rotation no more. A
    /// camera switch under way finishes first too (it may give the recording a new file: the
    /// roll goes on from that one).
    /// - Throws: `CaptureError.notAttached` when the recording is no longer running,
    ///   `CaptureError.closed`, or what building the new file's branch threw (the
    ///   recording then goes on in the file it has).
    public func rollOver(_ recording: Recording, to url: URL, fileLength: Duration? = nil) async throws -> Recording {
        await stopRollingOverOnRotation(recording.output)
        let next = try await asRollOver { () async throws -> RecordingOutput in
            let last = recording.segments.last!
            guard branches[ObjectIdentifier(last)] != nil else {
                throw CaptureError.notAttached("the recording to \(last.url.lastPathComponent)")
            }
            let boundary = fileLength.flatMap { length in
                last.frameSpan.map { $0.first + ClockTime(length.components.seconds) * ClockTime.second
                    + ClockTime(length.components.attoseconds / 1_000_000_000) }
            }
            let next = try RecordingOutput(url: url, codec: last.choice.codec, options: last.options)
            try await rollOver(from: last, to: next, notBefore: boundary)
            return next
        }
        rollOverRecordingsIfTurned()
        return Recording(session: self, output: next)
    }
}
