import Foundation
import Plumb

/// Motion started or ended, as the `motion` event gives it:
/// `{"motion": "started"|"ended", "fraction": 0.031, "boxes": [{x, y, width, height}], "time": "..."}`
/// (the same keys as `plumb motion` prints).
public struct MotionRecord: Sendable, Encodable, Equatable {
    public var motion: String
    /// The changed part of the picture in the frame that decided it (0 to 1).
    public var fraction: Double
    /// The changed regions in that frame, normalised in the upright picture.
    public var boxes: [NormalizedRect]
    public var time: String

    init(_ event: MotionEvent) {
        motion = event.change.rawValue
        fraction = (event.fraction * 10_000).rounded() / 10_000
        boxes = event.boxes
        time = event.date.iso8601Milliseconds
    }
}
