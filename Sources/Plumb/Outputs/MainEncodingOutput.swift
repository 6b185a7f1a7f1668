import GStreamer
import Synchronization
import PlumbRotation

/// The one encoding at recording quality as a branch of the capture session:
/// `encoder ! parser ! byte-stream caps ! appsink`, the recording codec from `choice`
/// (`EncoderChoice.configure`, as recordings and the ring), one keyframe a second, no
/// B-frames, SPS/PPS in front of every keyframe. Its appsink feeds `stream`, whose
/// subscribers are in-process: the pre-record ring, and the preview stream relaying it
/// while the preview's pixels would be the same (no turn to burn in, H.264).
///
/// The frames are encoded as they come (a recording's orientation is metadata): the capture
/// angle goes to `onAngle`, for the ring's clips and for whoever decides whether the
/// preview can take these frames.
public final class MainEncodingOutput: CaptureOutput {
    public let kind = "main"
    /// About a second of frames may wait for a slow encoder before the oldest are dropped.
    public var queueLimit: Int { 30 }
    public let choice: EncoderChoice
    /// Outlives attach and detach: subscribers stay subscribed across them.
    public let stream: EncodedStream
    private let onAngle: @Sendable (RotationAngle) -> Void
    private let onDetach: @Sendable ((any Error)?) -> Void
    private let sink = Mutex<AppSink?>(nil)

    /// `onAngle`, `onDetach`: called on the session's executor; they must only hand off.
    public init(choice: EncoderChoice, stream: EncodedStream, onAngle: @escaping @Sendable (RotationAngle) -> Void,
                onDetach: @escaping @Sendable ((any Error)?) -> Void) {
        self.choice = choice
        self.stream = stream
        self.onAngle = onAngle
        self.onDetach = onDetach
    }

    /// What the appsink carries: Annex B with the parameter sets in every keyframe, which a
    /// consumer can start on and an RTP payloader takes; clip writers parse it into what
    /// mp4mux takes.
    public static func caps(for codec: VideoCodec) -> String {
        codec == .h264 ? "video/x-h264,stream-format=byte-stream,alignment=au"
            : "video/x-h265,stream-format=byte-stream,alignment=au"
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        let encoder = try Element(factory: choice.encoder, name: "main_encoder")
        try choice.configure(encoder, gop: max(1, Int(format.rate.perSecond.rounded())), bitrate: nil)
        let parser = try Element(factory: choice.parser, name: "main_parser")
        try parser.set("config-interval", Int32(-1))  // SPS/PPS with every keyframe
        let filter = try Element(factory: "capsfilter", name: "main_caps")
        try filter.set("caps", try Caps(Self.caps(for: choice.codec)))
        let appsink = try AppSink(name: "main_sink")
        try bin.add(encoder, parser, filter, appsink)
        try encoder.link(to: parser)
        try parser.link(to: filter)
        try filter.link(to: appsink)
        try stream.attach(to: appsink)
        sink.withLock { $0 = appsink }
        return BranchEnds(entry: encoder, sink: appsink)
    }

    public func apply(rotation: RotationAngle) { onAngle(rotation) }

    /// Whether its frames still feed the stream: false before `build`, after a detach, and
    /// once a handover to another feed (a recording's encoder) has let go of them.
    public var feedsStream: Bool { sink.withLock { $0 }.map { stream.isFed(by: $0) } ?? false }

    /// Its appsink no longer feeds the stream.
    private func stopFeeding() {
        let appsink = sink.withLock { s in
            defer { s = nil }
            return s
        }
        if let appsink { stream.detach(appsink) }
    }

    public func didDiscard() { stopFeeding() }

    public func didDetach(error: (any Error)?) {
        if let error { EncoderHealth.branchFailed(encoder: choice.encoder, element: "main_encoder", error: error) }
        stopFeeding()
        onDetach(error)
    }
}
