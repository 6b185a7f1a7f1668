import FoundationEssentials
import Glibc
import Plumb

/// Motion started or ended, as the `motion` event gives it:
/// `{"motion": "started"|"ended", "fraction": 0.031, "boxes": [{x, y, width, height}], "time": "...", "frame": 12}`
/// (the same keys as `plumb motion` prints).
public struct MotionRecord: Sendable, Encodable, Equatable {
    public var motion: String
    /// The changed part of the picture in the frame that decided it (0 to 1).
    public var fraction: Double
    /// The changed regions in that frame, normalised in the upright picture.
    public var boxes: [NormalizedRect]
    public var time: String
    /// The analysis frame that decided it (the current session's detector counts from 1, as
    /// `GET /status` `motion` `frames_analysed` does).
    public var frame: Int

    init(_ event: MotionEvent) {
        motion = event.change.rawValue
        fraction = (event.fraction * 10_000).rounded() / 10_000
        boxes = event.boxes
        time = event.date.iso8601Milliseconds
        frame = event.frame
    }
}
