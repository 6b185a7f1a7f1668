import GStreamer

/// What a branch's sink received, kept in constant memory however long it runs:
/// how many frames, and the largest gaps between consecutive ones.
public struct FrameStats: Sendable, Equatable {
    /// Frames received.
    public var count = 0
    /// The largest step between consecutive timestamps: one frame interval when no
    /// frame went missing.
    public var largestTimestampGap: ClockTime = 0
    /// The largest time between consecutive arrivals (monotonic clock): how long the
    /// branch went without a frame.
    public var largestArrivalGap: UInt64 = 0
    /// The first and last timestamps (running time).
    public var firstTimestamp: ClockTime?
    public var lastTimestamp: ClockTime?
    private var lastArrival: UInt64?

    public init() {}

    mutating func add(timestamp: ClockTime, arrival: UInt64) {
        count += 1
        if let last = lastTimestamp, timestamp > last {
            largestTimestampGap = max(largestTimestampGap, timestamp - last)
        }
        if let last = lastArrival, arrival > last {
            largestArrivalGap = max(largestArrivalGap, arrival - last)
        }
        if firstTimestamp == nil { firstTimestamp = timestamp }
        lastTimestamp = timestamp
        lastArrival = arrival
    }
}
