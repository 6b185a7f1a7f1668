import FoundationEssentials
import Glibc

/// What an event clip is: in the answer to its trigger (while it records), and complete
/// once its file is finished. Times are wall-clock ISO 8601 (UTC, milliseconds).
public struct EventClipFacts: Sendable, Equatable, Encodable {
    /// The file's name in the recordings folder (it appears there, complete, when `state`
    /// is `finished`).
    public var file: String
    /// `recording`, `finished` or `failed`.
    public var state: String
    /// Every trigger that went into this clip: the first, then each that extended it.
    public var triggers: [String]
    /// The clip's first frame (a keyframe), on the wall clock.
    public var firstFrameAt: String
    /// How long before the first trigger the first frame is (at least `preSeconds` once the
    /// camera ran that long).
    public var preRecordedSeconds: Double
    public var preSeconds: Double
    /// After the latest trigger.
    public var postSeconds: Double
    /// When the clip is to end on the wall clock (the latest trigger + `postSeconds`, capped).
    public var endsAt: String
    /// The clip reached `[events] max-seconds`: later triggers did not extend it further.
    public var capped = false
    public var codec: String
    public var rotation: Int
    /// Counted so far; final once `state` is `finished`.
    public var frames = 0
    public var seconds = 0.0
    public var bytes: Int?
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case file, state, triggers, capped, codec, rotation, frames, seconds, bytes, error
        case firstFrameAt = "first_frame_at", preRecordedSeconds = "pre_recorded_seconds"
        case preSeconds = "pre_seconds", postSeconds = "post_seconds", endsAt = "ends_at"
    }
}
