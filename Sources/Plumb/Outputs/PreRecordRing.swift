import GStreamer

/// The last seconds of encoded video, whole GOPs only, for event clips that start before
/// their trigger.
///
/// - It starts at a keyframe: frames before the first one are refused.
/// - Seconds: the oldest GOP is dropped once the rest still reaches `seconds` back from
///   the newest frame, so the ring holds the keyframe at or before (newest − `seconds`)
///   and at most one GOP more than that.
/// - Bytes: the oldest GOP is dropped while the ring holds more than `maxBytes`; when the
///   newest GOP alone is too big, everything goes and the ring waits for the next keyframe.
///   The ring never holds more than `maxBytes`.
///
/// A value type (its owner locks it); `Payload` is the frame (a `Buffer` in the engine).
public struct PreRecordRing<Payload> {
    public struct Frame {
        public var payload: Payload
        /// Presentation time, nanoseconds (the capture pipeline's running time).
        public var time: ClockTime
        public var bytes: Int
        public var isKeyframe: Bool

        public init(payload: Payload, time: ClockTime, bytes: Int, isKeyframe: Bool) {
            self.payload = payload
            self.time = time
            self.bytes = bytes
            self.isKeyframe = isKeyframe
        }
    }

    /// How far back the ring must reach.
    public let seconds: Double
    public let maxBytes: Int

    /// Oldest first; `frames[0]` is a keyframe whenever the ring is not empty.
    public private(set) var frames: [Frame] = []
    public private(set) var bytes = 0
    /// GOPs dropped to stay within the bounds, and frames refused while waiting for a keyframe.
    public private(set) var droppedGOPs = 0
    public private(set) var refusedFrames = 0

    public init(seconds: Double, maxBytes: Int) {
        self.seconds = max(0, seconds)
        self.maxBytes = max(0, maxBytes)
    }

    /// Time from the oldest frame to the newest, in seconds.
    public var span: Double {
        guard let first = frames.first, let last = frames.last else { return 0 }
        return Double(last.time &- first.time) / Double(ClockTime.second)
    }

    public mutating func append(_ frame: Frame) {
        if frames.isEmpty && !frame.isKeyframe {
            refusedFrames += 1
            return
        }
        frames.append(frame)
        bytes += frame.bytes
        trim()
    }

    /// Everything, for a new source (the camera reopened: its timestamps start again).
    public mutating func removeAll() {
        frames.removeAll()
        bytes = 0
    }

    /// The frames from the last keyframe at or before `time` on (from the oldest keyframe
    /// when the ring does not reach back that far).
    public func frames(from time: ClockTime) -> ArraySlice<Frame> {
        var start = 0
        for (i, frame) in frames.enumerated() where frame.isKeyframe {
            if frame.time <= time { start = i } else { break }
        }
        return frames[start...]
    }

    private mutating func trim() {
        let window = ClockTime((seconds * Double(ClockTime.second)).rounded())
        while let second = secondKeyframe() {
            let newest = frames.last!.time
            let enoughWithout = newest >= frames[second].time && newest - frames[second].time >= window
            guard bytes > maxBytes || enoughWithout else { break }
            dropFront(second)
        }
        if bytes > maxBytes {
            // The newest GOP alone is too big: hold nothing rather than break the bound.
            droppedGOPs += 1
            removeAll()
        }
    }

    private func secondKeyframe() -> Int? {
        frames.indices.dropFirst().first { frames[$0].isKeyframe }
    }

    private mutating func dropFront(_ count: Int) {
        bytes -= frames[..<count].reduce(0) { $0 + $1.bytes }
        frames.removeFirst(count)
        droppedGOPs += 1
    }
}

extension PreRecordRing: Sendable where Payload: Sendable {}
extension PreRecordRing.Frame: Sendable where Payload: Sendable {}
