import FoundationEssentials
import Glibc
import PlumbBase
import PlumbLocation

/// Motion started or ended, as a `MotionOutput` reports it.
public struct MotionEvent: Sendable, Hashable {
    public var change: MotionDetector.Change
    /// The changed part of the picture in the frame that decided it (0 to 1).
    public var fraction: Double
    /// The changed regions in that frame, normalised in the upright picture (the capture angle applied).
    public var boxes: [NormalizedRect]
    /// The frame's time (its buffer timestamp, nanoseconds), and the wall-clock time it was analysed.
    public var frameTime: UInt64?
    public var date: Date
    /// The analysis frame that decided it, counted as `MotionOutput.framesAnalysed` counts
    /// (1 for the first frame the output analysed): how many frames a change took to be found.
    public var frame: Int

    /// `{"motion": "started"|"ended", "fraction", "boxes": [{x, y, width, height}], "time", "frame"}`.
    public var jsonLine: String {
        struct Line: Encodable {
            var motion: String, fraction: Double, time: String, frame: Int, boxes: [NormalizedRect]
        }
        return JSONLine.encode(Line(motion: change.rawValue, fraction: (fraction * 10_000).rounded() / 10_000,
                                    time: date.iso8601Milliseconds, frame: frame, boxes: boxes))
    }
}
