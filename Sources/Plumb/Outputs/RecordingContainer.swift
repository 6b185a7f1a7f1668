/// How `mp4mux` lays a recording out.
public enum RecordingContainer: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Fragments while recording, turned into a normal MP4 (one `moov` with the whole
    /// index) by a clean stop — mp4mux `fragment-mode=first-moov-then-finalise`. After a
    /// power cut the file plays up to its last whole fragment. The default.
    case fragmentedThenFinalized = "fragmented-then-finalized"
    /// A fragmented MP4 throughout (`moov`, then `moof`+`mdat` pairs; mp4mux
    /// `fragment-mode=dash-or-mss`): survives a power cut, and is what streaming consumers take.
    case fragmented
    /// One `mdat`, the `moov` written at the end: the simplest file, but nothing plays
    /// unless the recording is stopped cleanly.
    case plain

    public var description: String { rawValue }

    /// Whether mp4mux writes fragments (`fragment-duration` above 0).
    var isFragmented: Bool { self != .plain }

    /// mp4mux's `fragment-mode` nick, for fragmented layouts.
    var fragmentMode: String? {
        switch self {
        case .fragmentedThenFinalized: return "first-moov-then-finalise"
        case .fragmented: return "dash-or-mss"
        case .plain: return nil
        }
    }
}
