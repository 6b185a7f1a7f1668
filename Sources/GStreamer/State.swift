internal import CGStreamer

/// GstState.
public enum State: Int, Sendable, Comparable, CustomStringConvertible {
    case voidPending = 0, null, ready, paused, playing

    init(_ s: GstState) { self = State(rawValue: Int(s.rawValue)) ?? .voidPending }
    var gst: GstState { GstState(rawValue: UInt32(rawValue)) }

    public var description: String {
        switch self {
        case .voidPending: return "VOID_PENDING"
        case .null: return "NULL"
        case .ready: return "READY"
        case .paused: return "PAUSED"
        case .playing: return "PLAYING"
        }
    }

    public static func < (a: State, b: State) -> Bool { a.rawValue < b.rawValue }
}
