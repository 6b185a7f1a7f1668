import FoundationEssentials
import Glibc
import GStreamer

/// A recording rolls over to its next segment (file), whatever asks for it: the caller on
/// time (`rollOver(_:to:fileLength:)`, `plumb serve`'s `[recording] segment-seconds`), a
/// turn (`RecordingOptions.splitOnRotation`, `+RollOverOnRotation`). Both come here, one
/// roll at a time per recording, and move the frames with `FileSwap`; a camera switch to
/// other caps rolls every recording over in its own swap (`prepareRollOversForNewCaps`).
/// Each way, the next file is the recording's next segment (`Recording.segments`).
extension CaptureSession {
    /// Rolls `recording` over into a new file at `url`: the new file's branch is built
    /// complete beside the running one, then — between two frames, in a probe on the tee's
    /// sink pad — frames stop going to the old file and start going to the new one, none
    /// lost and none doubled. The new file starts with a keyframe and latches the current
    /// angle. The old file is finalized in the background; the new one is the recording's
    /// next segment, returned, and `recording.stop()` returns every file's facts.
    ///
    /// With `fileLength`, the new file starts at the first frame `fileLength` after the
    /// current file's first (by the frames' running time) — the new branch is built first,
    /// so a caller that asks a little early gets files of exact length however long the
    /// building took on a loaded machine.
    ///
    /// A roll on rotation under way finishes first, and so does a camera switch (it may
    /// give the recording a new file: the roll goes on from that one).
    /// - Throws: `CaptureError.notAttached` when the recording is no longer running or is
    ///   stopping, `CaptureError.closed`, or what building the new file's branch threw (the
    ///   recording then goes on in the file it has).
    @discardableResult
    public func rollOver(_ recording: Recording, to url: URL, fileLength: Duration? = nil) async throws -> RecordingOutput {
        let chain = recording.output.chain
        let key = ObjectIdentifier(chain)
        while let under = rolls[key] { await under.value }
        guard !chain.isStopping else {
            throw CaptureError.notAttached("the recording to \(recording.latest.url.lastPathComponent) (it is stopping)")
        }
        let roll = Task { try await self.rollOverNow(chain, to: url, fileLength: fileLength) }
        rolls[key] = Task { _ = await roll.result }
        let result = await roll.result
        rolls[key] = nil
        rollOverRecordingsIfTurned()
        return try result.get()
    }

    /// The one roll: moves the recording of `chain` from the segment being written to its
    /// next (at `url`, or named after the current one), with `fileLength` at the frame that
    /// long after the current file's first, else at the next frame. Runs as a roll of the
    /// session (`asRollOver`: never during a camera switch).
    func rollOverNow(_ chain: RecordingChain, to url: URL?, fileLength: Duration?) async throws -> RecordingOutput {
        try await asRollOver { () async throws -> RecordingOutput in
            guard let current = latestSegment(of: chain) else {
                throw CaptureError.notAttached("the recording (its file is no longer written)")
            }
            let boundary = fileLength.flatMap { length in
                current.frameSpan.map { $0.first + ClockTime(length.components.seconds) * ClockTime.second
                    + ClockTime(length.components.attoseconds / 1_000_000_000) }
            }
            let next = try current.nextSegment(at: url)
            try await rollOver(from: current, to: next, notBefore: boundary)
            return next
        }
    }

    /// The segment of `chain`'s recording whose branch the session runs (the latest).
    func latestSegment(of chain: RecordingChain) -> RecordingOutput? {
        branches.values.lazy.compactMap { $0.output as? RecordingOutput }.first { $0.chain === chain && chain.isLatest($0) }
    }

    /// Marks a recording as stopping (no new segment from now on) and waits for a roll under way.
    func stopRollingOver(_ chain: RecordingChain) async {
        chain.stop()
        while let under = rolls[ObjectIdentifier(chain)] { await under.value }
    }
}
