import GStreamer

/// Which encoder element makes a codec, the parser that goes after it, and why the better
/// candidates were passed over.
public struct EncoderChoice: Sendable, Equatable {
    public var codec: VideoCodec
    /// The encoder factory ("x264enc").
    public var encoder: String
    /// The parser factory ("h264parse").
    public var parser: String
    /// The better candidates that could not be used, each "NAME: why" (best first).
    public var passedOver: [String] = []

    public var candidate: EncoderCandidate {
        EncoderCandidate.named(encoder) ?? EncoderCandidate(name: encoder, codec: codec, kind: .software)
    }

    /// The encoders tried for each codec, best first.
    public static var encoders: [VideoCodec: [String]] {
        Dictionary(grouping: EncoderCandidate.all, by: \.codec).mapValues { $0.map(\.name) }
    }

    /// `.auto`: the requested codec's first usable candidate (`EncoderProbe`), then the other
    /// codec's unless `sameCodec` — a machine without x265 still records (in H.264), and the
    /// facts say so. `.named`: that encoder or an error saying why it cannot be used.
    public static func choose(_ requested: VideoCodec, preference: EncoderPreference = .auto, sameCodec: Bool = false,
                              available: (String) -> Bool = { Gst.hasElement($0) }) throws(CaptureError) -> EncoderChoice {
        if case .named(let name) = preference {
            guard let candidate = EncoderCandidate.named(name) else {
                throw CaptureError.invalidArgument("unknown encoder \"\(name)\"")
            }
            if sameCodec, candidate.codec != requested {
                throw CaptureError.invalidArgument("encoder \(name) makes \(candidate.codec.rawValue.uppercased()), "
                    + "not \(requested.rawValue.uppercased())")
            }
            if let problem = EncoderProbe.problem(with: candidate, installed: available) {
                throw CaptureError.noEncoder("encoder \(name) cannot be used: \(problem)")
            }
            guard available(candidate.parser) else {
                throw CaptureError.noEncoder("encoder \(name) cannot be used: \(candidate.parser) is missing")
            }
            return EncoderChoice(codec: candidate.codec, encoder: name, parser: candidate.parser)
        }
        var passedOver: [String] = []
        for codec in sameCodec ? [requested] : [requested, requested.other] {
            for candidate in EncoderCandidate.candidates(for: codec) {
                if let problem = EncoderHealth.problem(with: candidate.name)
                    ?? EncoderProbe.problem(with: candidate, installed: available) {
                    passedOver.append("\(candidate.name): \(problem)")
                    continue
                }
                guard available(candidate.parser) else {
                    passedOver.append("\(candidate.name): \(candidate.parser) is missing")
                    continue
                }
                return EncoderChoice(codec: codec, encoder: candidate.name, parser: candidate.parser,
                                     passedOver: passedOver)
            }
        }
        let tried = (sameCodec ? EncoderCandidate.candidates(for: requested) : EncoderCandidate.all)
            .map(\.name).joined(separator: ", ")
        throw CaptureError.noEncoder(
            "no \(sameCodec ? requested.rawValue.uppercased() : "H.264 or H.265") encoder is usable (looked for \(tried) "
            + "with h264parse/h265parse); install gstreamer1.0-plugins-ugly (x264enc) or gstreamer1.0-plugins-bad "
            + "(x265enc, openh264enc)")
    }

    /// Whether the choice passed over a candidate that is there but failed (to start, or
    /// repeatedly while running: `EncoderHealth`) — not
    /// one that is merely absent, as hardware encoders are on most machines.
    public var fellBack: Bool {
        passedOver.contains { $0.contains(": failed to start") || $0.contains(" while running") }
    }
}
