import GStreamer
import PlumbRotation

/// How the preview is encoded for its network consumers: H.264 from the best usable encoder
/// (`EncoderChoice`: the board's V4L2 encoder, VA-API, else x264), tuned for latency — no
/// B-frames, no look-ahead, SPS/PPS in front of every keyframe, constrained baseline so
/// every RTSP client and browser decodes it — so a consumer can start on any keyframe and
/// a keyframe can be asked for at any time.
public struct PreviewEncoding: Sendable, Equatable {
    /// Target bitrate, kbit/s (x264enc `bitrate`).
    public var bitrate: Int
    /// Most frames between keyframes (x264enc `key-int-max`). Joining consumers do not
    /// wait for it: each join asks for a keyframe.
    public var keyframeInterval: Int
    /// Letterbox: a fixed canvas the picture is scaled into, with borders, whatever the
    /// rotation — the stream's size never changes, for consumers that cope badly with a
    /// new SPS. nil: the stream takes the (rotated) frame's own size.
    public var canvas: VideoSize?
    /// Which H.264 encoder: the best usable one, or a named one.
    public var encoder: EncoderPreference
    /// constrained-baseline by default: every browser and RTSP client decodes it.
    public var profile: EncodingSettings.Profile
    /// nil lets the encoder pick from the size and rate.
    public var level: String?

    public init(bitrate: Int = 1500, keyframeInterval: Int = 60, canvas: VideoSize? = nil,
                encoder: EncoderPreference = .auto, profile: EncodingSettings.Profile = .constrainedBaseline,
                level: String? = nil) {
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.canvas = canvas
        self.encoder = encoder
        self.profile = profile
        self.level = level
    }

    /// The one description every encoder gets, in its own terms.
    public var settings: EncodingSettings {
        EncodingSettings(bitrate: bitrate, keyframeInterval: keyframeInterval, profile: profile, level: level,
                         zeroLatency: true)
    }

    /// What the branch's appsink carries.
    public static let outputCaps = "video/x-h264,stream-format=byte-stream,alignment=au"

    /// The branch in gst-launch syntax, for documentation and error messages.
    public var launchDescription: String {
        var parts = ["videoflip name=preview_flip"]
        if let canvas {
            parts += ["videoscale add-borders=true",
                      "video/x-raw,width=\(canvas.width),height=\(canvas.height),pixel-aspect-ratio=1/1"]
        }
        parts += ["videoconvert",
                  "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=\(keyframeInterval) bitrate=\(bitrate)",
                  settings.encodedCaps(codec: .h264) ?? "video/x-h264",
                  "h264parse config-interval=-1", Self.outputCaps, "appsink name=preview_sink"]
        return parts.joined(separator: " ! ")
    }

    /// Builds the branch into `bin` and links it: `videoflip ! [videoscale ! canvas caps] !
    /// videoconvert ! ENCODER ! profile caps ! h264parse ! caps ! appsink`. The caller links its own
    /// head (a leaky queue on a tee) to `entry`, and hands `sink` to an `EncodedStream`.
    public func build(in bin: Bin) throws -> EncodedPreviewBranch {
        guard bitrate > 0, bitrate <= 2_048_000 else {
            throw CaptureError.invalidArgument("preview bitrate \(bitrate) kbit/s is out of range: use 1 to 2048000")
        }
        guard keyframeInterval > 0 else {
            throw CaptureError.invalidArgument(
                "preview keyframe interval \(keyframeInterval) is out of range: use 1 or more frames")
        }
        if let canvas, !canvas.fits420 {
            throw CaptureError.invalidArgument("preview canvas \(canvas) must have even, positive sides (e.g. 1280x720)")
        }
        let flip = try Element(factory: "videoflip", name: "preview_flip")
        var chain: [Element] = [flip]
        if let canvas {
            let scale = try Element(factory: "videoscale", name: "preview_scale")
            try scale.set("add-borders", true)
            let box = try Element(factory: "capsfilter", name: "preview_canvas")
            try box.set("caps", try Caps("video/x-raw,width=\(canvas.width),height=\(canvas.height),pixel-aspect-ratio=1/1"))
            chain += [scale, box]
        }
        let convert = try Element(factory: "videoconvert", name: "preview_convert")
        let choice = try EncoderChoice.choose(.h264, preference: encoder, sameCodec: true)
        let encoder = try Element(factory: choice.encoder, name: "preview_encoder")
        try settings.apply(to: encoder, as: choice.candidate)
        let profileCaps = try Element(factory: "capsfilter", name: "preview_profile")
        try profileCaps.set("caps", try Caps(settings.encodedCaps(codec: .h264) ?? "video/x-h264"))
        let parse = try Element(factory: "h264parse", name: "preview_parse")
        try parse.set("config-interval", Int32(-1))  // SPS/PPS with every keyframe
        let format = try Element(factory: "capsfilter", name: "preview_format")
        try format.set("caps", try Caps(Self.outputCaps))
        let sink = try AppSink(name: "preview_sink")
        chain += [convert, encoder, profileCaps, parse, format, sink]
        try bin.add(chain)
        for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
        return EncodedPreviewBranch(entry: flip, flip: flip, encoder: encoder, sink: sink, choice: choice)
    }
}

/// The elements of a built preview branch that its owner needs again.
public struct EncodedPreviewBranch: Sendable {
    /// Where the branch's head links to.
    public var entry: Element
    /// `videoflip`: turn it with `apply(rotation:)`.
    public var flip: Element
    /// The encoder: keyframe requests reach it as upstream force-key-unit events (every
    /// encoder here is a GstVideoEncoder, which turns them into its own control).
    public var encoder: Element
    /// The appsink the encoded frames leave by: give it to `EncodedStream.attach(to:)`.
    public var sink: AppSink
    /// Which encoder runs, and why the better ones did not.
    public var choice: EncoderChoice

    /// Turns the pixels (`video-direction`); allowed while playing. Without a canvas a
    /// quarter turn swaps the stream's width and height (a new SPS follows).
    public func apply(rotation: RotationAngle) throws {
        try flip.set("video-direction", EnumNick(rotation.videoDirection))
    }
}
