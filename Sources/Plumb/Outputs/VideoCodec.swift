/// The video codecs a recording can use.
public enum VideoCodec: String, Sendable, Codable, CaseIterable {
    case h264, h265

    /// The other one, for the fallback.
    var other: VideoCodec { self == .h264 ? .h265 : .h264 }
}
