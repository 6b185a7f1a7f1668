import GStreamer

/// The video codecs a recording can use.
public enum VideoCodec: String, Sendable, Codable, CaseIterable {
    case h264, h265

    /// The other one, for the fallback.
    var other: VideoCodec { self == .h264 ? .h265 : .h264 }
}

/// Which encoder element makes a codec, and the parser that goes after it.
public struct EncoderChoice: Sendable, Equatable {
    public var codec: VideoCodec
    /// The encoder factory ("x264enc").
    public var encoder: String
    /// The parser factory ("h264parse").
    public var parser: String

    /// The encoders tried for each codec, best first.
    public static let encoders: [VideoCodec: [String]] = [
        .h264: ["x264enc", "openh264enc"],
        .h265: ["x265enc"],
    ]

    /// The requested codec's encoders first, then the other codec's: a machine without
    /// x265 still records (in H.264), and the facts say so.
    public static func choose(_ requested: VideoCodec,
                              available: (String) -> Bool = { Gst.hasElement($0) }) throws(CaptureError) -> EncoderChoice {
        for codec in [requested, requested.other] {
            for encoder in encoders[codec] ?? [] where available(encoder) {
                let parser = codec == .h264 ? "h264parse" : "h265parse"
                guard available(parser) else { continue }
                return EncoderChoice(codec: codec, encoder: encoder, parser: parser)
            }
        }
        let tried = VideoCodec.allCases.flatMap { encoders[$0] ?? [] }.joined(separator: ", ")
        throw CaptureError.noEncoder(
            "no H.264 or H.265 encoder is installed (looked for \(tried) with h264parse/h265parse); "
            + "install gstreamer1.0-plugins-ugly (x264enc) or gstreamer1.0-plugins-bad (x265enc, openh264enc)")
    }
}
