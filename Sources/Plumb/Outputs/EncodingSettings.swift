import GStreamer

/// One description of how to encode, mapped onto each encoder's own interface: x264's and
/// VA's properties, the V4L2 encoders' `extra-controls`. Profile and level also go into
/// the caps after the encoder, which x264enc, openh264enc, the VA and the V4L2 encoders
/// all negotiate from.
public struct EncodingSettings: Sendable, Equatable {
    /// H.264 profiles a preview or recording may ask for.
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        case constrainedBaseline = "constrained-baseline"
        case baseline, main, high

        /// V4L2_MPEG_VIDEO_H264_PROFILE_* (the `h264_profile` menu).
        var v4l2: Int {
            switch self {
            case .baseline: return 0
            case .constrainedBaseline: return 1
            case .main: return 2
            case .high: return 4
            }
        }
    }

    /// kbit/s; nil leaves the encoder's default.
    public var bitrate: Int?
    /// Most frames between keyframes.
    public var keyframeInterval: Int
    public var profile: Profile?
    /// H.264 level ("3.1", "4"); nil lets the encoder pick.
    public var level: String?
    /// No B-frames, no look-ahead, the fastest preset: a frame in is a frame out (the preview).
    public var zeroLatency: Bool

    public init(bitrate: Int? = nil, keyframeInterval: Int, profile: Profile? = nil, level: String? = nil,
                zeroLatency: Bool = true) {
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.profile = profile
        self.level = level
        self.zeroLatency = zeroLatency
    }

    /// The H.264 levels V4L2 numbers in its `h264_level` menu, in order.
    static let v4l2Levels = ["1", "1b", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "3", "3.1", "3.2",
                             "4", "4.1", "4.2", "5", "5.1", "5.2", "6", "6.1", "6.2"]

    /// The V4L2 encoder's controls: `extra-controls` as a GstStructure.
    public func v4l2Controls(codec: VideoCodec) -> String {
        var fields = ["controls"]
        if let bitrate { fields.append("video_bitrate=(int)\(bitrate * 1000)") }
        if codec == .h264 {
            fields.append("h264_i_frame_period=(int)\(keyframeInterval)")
            if let profile { fields.append("h264_profile=(int)\(profile.v4l2)") }
            if let level, let index = Self.v4l2Levels.firstIndex(of: level) { fields.append("h264_level=(int)\(index)") }
        } else {
            fields.append("hevc_i_frame_period=(int)\(keyframeInterval)")
        }
        // SPS/PPS before every keyframe: a consumer can start at any one.
        fields.append("repeat_sequence_header=(boolean)true")
        return fields.joined(separator: ",")
    }

    /// Sets `encoder` (an instance of `candidate`) up.
    public func apply(to encoder: Element, as candidate: EncoderCandidate) throws {
        switch candidate.name {
        case "x264enc", "x265enc":
            // zerolatency: no lookahead or B-frames, so a frame in is a frame out.
            if zeroLatency { try encoder.set("tune", parsing: "zerolatency") }
            try encoder.set("speed-preset", parsing: "ultrafast")
            try encoder.set("key-int-max", keyframeInterval)
            if let bitrate { try encoder.set("bitrate", bitrate) }
        case "openh264enc":
            try encoder.set("gop-size", keyframeInterval)
            if let bitrate { try encoder.set("bitrate", bitrate * 1000) }
        case "v4l2h264enc", "v4l2h265enc":
            try encoder.set("extra-controls", parsing: v4l2Controls(codec: candidate.codec))
        case "vah264enc", "vah265enc":
            try encoder.set("key-int-max", parsing: String(keyframeInterval))
            if let bitrate { try encoder.set("bitrate", parsing: String(bitrate)) }
            if zeroLatency {
                try encoder.set("b-frames", parsing: "0")
                try encoder.set("target-usage", parsing: "7")  // best speed
            }
            if bitrate != nil, encoder.hasProperty("rate-control") { try encoder.set("rate-control", parsing: "cbr") }
        case "vaapih264enc", "vaapih265enc":
            try encoder.set("keyframe-period", parsing: String(keyframeInterval))
            if let bitrate { try encoder.set("bitrate", parsing: String(bitrate)) }
            if zeroLatency { try encoder.set("max-bframes", parsing: "0") }
            if bitrate != nil { try encoder.set("rate-control", parsing: "cbr") }
        default:
            break
        }
    }

    /// The caps after the encoder that carry profile and level; nil when neither is asked for.
    public func encodedCaps(codec: VideoCodec) -> String? {
        guard codec == .h264, profile != nil || level != nil else { return nil }
        var caps = "video/x-h264"
        if let profile { caps += ",profile=\(profile.rawValue)" }
        if let level { caps += ",level=(string)\(level)" }
        return caps
    }
}
