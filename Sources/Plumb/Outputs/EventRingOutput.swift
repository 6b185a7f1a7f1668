import GStreamer
import Synchronization
import PlumbRotation

/// The event recorder's branch of a capture session: `encoder ! parser ! caps ! appsink`,
/// encoded like a recording (the recording codec, `EncoderChoice.configure`) with one
/// keyframe a second, so a clip can start close to (trigger − pre-seconds). Its appsink
/// feeds the `EventRecorder`'s pre-record ring; no continuous recording needs to run.
///
/// A recording's orientation is metadata (the `tkhd` matrix), not pixels: the branch
/// encodes the frames as they come, and each clip gets the capture angle of its start.
/// One per session (made by `EventRecorder.output()`); the recorder outlives it.
public final class EventRingOutput: CaptureOutput {
    public let kind = "event"
    /// About a second of frames may wait for a slow encoder before the oldest are dropped.
    public var queueLimit: Int { 30 }
    let recorder: EventRecorder
    private let sink = Mutex<AppSink?>(nil)

    init(recorder: EventRecorder) { self.recorder = recorder }

    /// What the appsink takes: what mp4mux takes without another parser.
    static func caps(for codec: VideoCodec) -> String {
        codec == .h264 ? "video/x-h264,stream-format=avc,alignment=au" : "video/x-h265,stream-format=hvc1,alignment=au"
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        let choice = recorder.choice
        let encoder = try Element(factory: choice.encoder, name: "event_encoder")
        try choice.configure(encoder, gop: max(1, Int(format.rate.perSecond.rounded())), bitrate: nil)
        let parser = try Element(factory: choice.parser, name: "event_parser")
        let filter = try Element(factory: "capsfilter", name: "event_caps")
        try filter.set("caps", try Caps(Self.caps(for: choice.codec)))
        let appsink = try AppSink(name: "event_sink")
        try appsink.set("sync", false)
        try appsink.set("async", false)
        try appsink.set("enable-last-sample", false)
        try bin.add(encoder, parser, filter, appsink)
        try encoder.link(to: parser)
        try parser.link(to: filter)
        try filter.link(to: appsink)
        recorder.sourceAttached()
        let recorder = self.recorder
        appsink.onNewSample { sink in
            guard let sample = sink.pull(timeout: .zero) else { return }
            recorder.receive(sample)
        }
        sink.withLock { $0 = appsink }
        return BranchEnds(entry: encoder, sink: appsink)
    }

    public func apply(rotation: RotationAngle) { recorder.set(angle: rotation) }

    public func didDetach(error: (any Error)?) {
        sink.withLock { s in
            s?.clearCallbacks()
            s = nil
        }
        recorder.sourceDetached()
    }
}
