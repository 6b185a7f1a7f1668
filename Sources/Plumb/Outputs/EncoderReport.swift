import GStreamer

/// Every codec's encoder candidates in order, whether each can be used here and why not,
/// and which one `EncoderChoice` takes: what `plumb encoders` prints.
public struct EncoderReport: Sendable, Codable, Equatable {
    public struct Entry: Sendable, Codable, Equatable {
        public var encoder: String
        public var kind: EncoderCandidate.Kind
        public var available: Bool
        /// Why it cannot be used: element missing, device node missing, failed to start.
        public var reason: String?
    }

    public struct Codec: Sendable, Codable, Equatable {
        public var codec: VideoCodec
        /// The encoder `auto` picks; nil when none is usable.
        public var choice: String?
        public var candidates: [Entry]
    }

    public var codecs: [Codec]

    /// Probes every candidate, software ones too (each encodes a frame).
    public static func current() -> EncoderReport {
        EncoderReport(codecs: VideoCodec.allCases.map { codec in
            let entries = EncoderCandidate.candidates(for: codec).map { candidate in
                var problem = EncoderProbe.problem(with: candidate, tryStart: true)
                if problem == nil, !Gst.hasElement(candidate.parser) { problem = "\(candidate.parser) is missing" }
                return Entry(encoder: candidate.name, kind: candidate.kind, available: problem == nil, reason: problem)
            }
            return Codec(codec: codec, choice: entries.first { $0.available }?.encoder, candidates: entries)
        })
    }
}
