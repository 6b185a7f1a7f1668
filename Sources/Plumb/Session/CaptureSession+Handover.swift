import Foundation

/// A recording continued in a new file at a frame boundary, for `plumb serve`'s segments
/// (`[recording] segment-seconds`): the same swap at the tee as a split on rotation, asked
/// for by the caller instead of by a turn.
extension CaptureSession {
    /// Moves `recording` on into a new file at `url`: the new file's branch is built
    /// complete beside the running one, then — between two frames, in a probe on the tee's
    /// sink pad — frames stop going to the old file and start going to the new one, none
    /// lost and none doubled. The new file starts with a keyframe and latches the current
    /// angle. The old file is finalized in the background; `recording.stop()` returns its
    /// facts once it is. The new file is a recording of its own, returned.
    ///
    /// A split on rotation under way finishes first; the old recording splits no more.
    /// - Throws: `CaptureError.notAttached` when the recording is no longer running,
    ///   `CaptureError.closed`, or what building the new file's branch threw (the
    ///   recording then goes on in the file it has).
    public func continueRecording(_ recording: Recording, in url: URL) async throws -> Recording {
        await stopSplitting(recording.output)
        guard phase == .running else { throw failure ?? CaptureError.closed }
        let last = recording.segments.last!
        guard let old = branches[ObjectIdentifier(last)] else {
            throw CaptureError.notAttached("the recording to \(last.url.lastPathComponent)")
        }
        let next = try MovieOutput(url: url, codec: last.choice.codec, options: last.options)
        try await handOver(from: old, of: last, to: next)
        splitRecordingsIfTurned()
        return Recording(session: self, output: next)
    }
}
