import FoundationEssentials
import Glibc
import Plumb
import Synchronization

/// What started an event clip, when it was not a request (`POST /event`, SIGUSR2): added to
/// the clip's facts in its `event` event as `started_by` and `boxes`.
public struct EventClipCause: Sendable, Equatable {
    /// `motion`.
    public var startedBy: String
    /// The changed regions when motion started it, normalised in the upright picture.
    public var boxes: [NormalizedRect]
}

/// The causes of the clips being written, by file, until each is published.
final class EventClipCauses: Sendable {
    private let byFile = Mutex<[String: EventClipCause]>([:])

    func set(_ cause: EventClipCause, for file: String) {
        byFile.withLock { $0[file] = cause }
    }

    /// The cause of a finished clip, forgotten as it is taken.
    func take(for file: String) -> EventClipCause? {
        byFile.withLock { $0.removeValue(forKey: file) }
    }
}

/// A finished clip's facts with what started it.
struct CausedEventClipFacts: Encodable, Sendable {
    var facts: EventClipFacts
    var cause: EventClipCause

    enum Keys: String, CodingKey { case startedBy = "started_by", boxes }

    func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(cause.startedBy, forKey: .startedBy)
        try c.encode(cause.boxes, forKey: .boxes)
    }
}
