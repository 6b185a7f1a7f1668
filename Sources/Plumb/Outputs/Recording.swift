import Foundation
import GStreamer

/// A recording in progress: `stop()` finalizes the file while the session keeps running.
/// With `RecordingOptions.splitOnRotation` it may grow into several files, one per angle.
public final class Recording: Sendable {
    public let session: CaptureSession
    /// The first file's output.
    public let output: RecordingOutput

    init(session: CaptureSession, output: RecordingOutput) {
        self.session = session
        self.output = output
    }

    /// The first file.
    public var url: URL { output.url }
    /// The codec really used (after any fallback).
    public var codec: VideoCodec { output.choice.codec }

    /// Every file's output so far, in order (one unless the recording split on rotation).
    public var segments: [RecordingOutput] {
        var all = [output]
        while let next = all.last!.successor { all.append(next) }
        return all
    }

    /// Every file so far, in order.
    public var urls: [URL] { segments.map(\.url) }

    /// Why the recording could not move to a new file when the angle changed (it went on
    /// in the file it had, so nothing was lost), or could not give a file its angle (it
    /// plays unturned), most recent last.
    public var splitFailures: [String] { output.chain.failures }

    /// The pipeline running time when the session took the request.
    public var requestTime: ClockTime? { output.requestTime }

    /// The running time of the first recorded frame (a keyframe), once it is in.
    public func firstFrameTime(timeout: Duration = .seconds(10)) async throws -> ClockTime {
        try await output.firstFrameTime(timeout: timeout)
    }

    /// Returns when a frame past `RecordingOptions.length` has arrived (the recording holds its
    /// whole length); never without a length, until the waiting task is cancelled.
    public func lengthReached() async throws {
        try await output.chain.full.value(what: "the recording's length")
    }

    /// Frames and seconds recorded so far (over every file), for a progress line.
    public var progress: (frames: Int, seconds: Double) {
        segments.reduce((0, 0)) { sum, s in
            let p = s.progress
            return (sum.0 + p.frames, sum.1 + p.seconds)
        }
    }

    /// After `stop()` threw because a file ended by itself (a full disk, a failed encoder, the
    /// camera gone): every file's facts as the files hold them, the failed one with its
    /// `error`. nil while the recording runs and after a clean stop.
    public var factsAfterFailure: RecordingFacts? {
        var files: [RecordingFacts] = []
        var failed = false
        for segment in segments {
            switch segment.finished.result {
            case .success(let facts)?:
                files.append(facts)
            case .failure?:
                guard let facts = segment.factsAfterFailure else { return nil }
                files.append(facts)
                failed = true
            case nil:
                return nil
            }
        }
        return failed ? RecordingFacts.combining(files) : nil
    }

    /// Sends EOS into the recording's branch only, waits until every file is finalized,
    /// and returns the facts (every file listed in `segments` when there are several).
    /// Calling it again returns the same facts.
    public func stop() async throws -> RecordingFacts {
        // No new file from here on; a split under way finishes first.
        await session.stopRollingOverOnRotation(output)
        let last = segments.last!
        if last.finished.result == nil {
            do {
                try await session.detach(last)
            } catch CaptureError.notAttached {
                // Already taken down (a failure, or the session closed): the result says how.
            }
        }
        var files: [RecordingFacts] = []
        for segment in segments {
            files.append(try await segment.finished.value(timeout: .seconds(30),
                                                          what: "finalizing \(segment.url.lastPathComponent)"))
        }
        return RecordingFacts.combining(files)!
    }
}
