/// Which encoder a recording or the preview uses: the best usable one, or a named one.
public enum EncoderPreference: Sendable, Hashable, CustomStringConvertible {
    case auto
    case named(String)

    /// "auto" or an encoder element's name from `EncoderCandidate.all`.
    public init(parsing text: String) throws(CaptureError) {
        if text == "auto" { self = .auto; return }
        guard EncoderCandidate.named(text) != nil else {
            throw CaptureError.invalidArgument(
                "unknown encoder \"\(text)\": use auto or one of \(EncoderCandidate.all.map(\.name).joined(separator: ", "))")
        }
        self = .named(text)
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .named(let n): return n
        }
    }
}
