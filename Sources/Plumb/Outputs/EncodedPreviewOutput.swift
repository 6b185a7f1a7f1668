import GStreamer
import Synchronization
import PlumbRotation

/// The encoded preview as a branch of the capture session: the session's leaky head
/// queue (two frames: a slow encoder drops preview frames, never the camera's), then the
/// `PreviewEncoding` branch, whose appsink feeds `stream` — and through it the RTSP
/// preview and the upstream publisher, which live in pipelines of their own.
///
/// The pixels are turned with the session's rotation (RTP carries no orientation);
/// without a letterbox canvas a quarter turn swaps the stream's width and height.
public final class EncodedPreviewOutput: CaptureOutput {
    public let kind = "stream"
    public var queueLimit: Int { 2 }
    public let encoding: PreviewEncoding
    /// Outlives attach and detach: subscribers stay subscribed across them.
    public let stream: EncodedStream

    private let state = Mutex<(angle: RotationAngle, branch: EncodedPreviewBranch?)>((.degrees0, nil))
    private let lastChoice = Mutex<EncoderChoice?>(nil)

    /// The encoder the last built branch runs, and why better ones did not (nil before the
    /// first build).
    public var encoderChoice: EncoderChoice? { lastChoice.withLock { $0 } }

    /// Told once the branch is gone (after the session's `didDetach`), with why when it
    /// failed; on the session's executor: must only hand off.
    private let onDetach: (@Sendable ((any Error)?) -> Void)?

    public init(encoding: PreviewEncoding = PreviewEncoding(), stream: EncodedStream = EncodedStream(),
                onDetach: (@Sendable ((any Error)?) -> Void)? = nil) {
        self.encoding = encoding
        self.stream = stream
        self.onDetach = onDetach
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        let branch = try encoding.build(in: bin)
        try stream.attach(to: branch.sink)
        state.withLock { $0.branch = branch }
        lastChoice.withLock { $0 = branch.choice }
        return BranchEnds(entry: branch.entry, sink: branch.sink)
    }

    public func apply(rotation: RotationAngle) {
        let branch = state.withLock { s in
            s.angle = rotation
            return s.branch
        }
        try? branch?.apply(rotation: rotation)
    }

    public var rotation: RotationAngle { state.withLock { $0.angle } }

    public func didDetach(error: (any Error)?) {
        if let error, let choice = encoderChoice {
            EncoderHealth.branchFailed(encoder: choice.encoder, element: "preview_encoder", error: error)
        }
        stopFeeding()
        onDetach?(error)
    }

    public func didDiscard() { stopFeeding() }

    /// Only its own sink leaves the stream: a successor may already feed it (`OnDemandPreview`).
    private func stopFeeding() {
        let branch = state.withLock { s in
            defer { s.branch = nil }  // the branch is gone: let go of its elements
            return s.branch
        }
        if let branch { stream.detach(branch.sink) }
    }
}
