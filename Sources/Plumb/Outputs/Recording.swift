import Foundation
import GStreamer

/// A recording in progress: `stop()` finalizes the file while the session keeps running.
public final class Recording: Sendable {
    public let session: CaptureSession
    public let output: MovieOutput

    init(session: CaptureSession, output: MovieOutput) {
        self.session = session
        self.output = output
    }

    public var url: URL { output.url }
    /// The codec really used (after any fallback).
    public var codec: VideoCodec { output.choice.codec }

    /// The pipeline running time when the session took the request.
    public var requestTime: ClockTime? { output.requestTime }

    /// The running time of the first recorded frame (a keyframe), once it is in.
    public func firstFrameTime(timeout: Duration = .seconds(10)) async throws -> ClockTime {
        try await output.firstFrameTime(timeout: timeout)
    }

    /// Frames and seconds recorded so far, for a progress line.
    public var progress: (frames: Int, seconds: Double) { output.progress }

    /// Sends EOS into the recording's branch only, waits until the file is finalized,
    /// and returns its facts. Calling it again returns the same facts.
    public func stop() async throws -> MovieFacts {
        if output.finished.result == nil {
            do {
                try await session.detach(output)
            } catch CaptureError.notAttached {
                // Already taken down (a failure, or the session closed): the result says how.
            }
        }
        return try await output.finished.value(timeout: .seconds(30), what: "finalizing \(url.lastPathComponent)")
    }
}
