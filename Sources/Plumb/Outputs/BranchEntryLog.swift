import GStreamer

/// What the tee gave one recording's branch, frame by frame, in constant memory: running
/// counts of the frames that entered and of the frames missing between them (`FrameGaps`),
/// and the most recent frames' times with those counts, so the counts can be read at the
/// file's first and last frame, which reach the muxer a queue and an encoder later.
struct BranchEntryLog: Sendable {
    private struct Entry {
        var time: ClockTime
        /// Frames that entered, this one included.
        var entered: Int
        /// Frames missing before this one (`FrameGaps.lost` after it).
        var lost: Int
    }

    /// Enough for the frames between the tee and the muxer: the head queue's 30, an
    /// encoder's look-ahead, and a muxer behind.
    private static let capacity = 512
    private var gaps: FrameGaps
    private var ring: [Entry] = []
    private var next = 0
    private(set) var entered = 0
    var lost: Int { gaps.lost }
    var interval: ClockTime { gaps.interval }
    /// The counts just before the end of the recording's length (`add(…lengthEnd:)`).
    private(set) var atLengthEnd: (entered: Int, lost: Int)?

    init(rate: FrameRate, numbered: Bool = false) {
        gaps = FrameGaps(rate: rate, numbered: numbered)
        ring.reserveCapacity(Self.capacity)
    }

    /// A frame entered the branch (its buffer offset and running time, each nil when unknown).
    /// `lengthEnd`: where the recording's length ends, if it has one; the counts before the
    /// first frame at it are kept (`atLengthEnd`).
    mutating func add(offset: UInt64?, time: ClockTime?, lengthEnd: ClockTime? = nil) {
        if let lengthEnd, let time, atLengthEnd == nil, time + interval / 2 >= lengthEnd {
            atLengthEnd = (entered, lost)
        }
        gaps.add(offset: offset, time: time)
        entered += 1
        guard let time else { return }
        let entry = Entry(time: time, entered: entered, lost: gaps.lost)
        if ring.count < Self.capacity { ring.append(entry) } else { ring[next] = entry }
        next = (next + 1) % Self.capacity
    }

    /// The counts at the frame stamped `time` (within half a frame), while it is among the
    /// recent ones: `entered` counts it, `lost` the frames missing before it. Searched from
    /// the newest back: the frame asked for is usually a queue's length behind.
    func counts(at time: ClockTime) -> (entered: Int, lost: Int)? {
        let tolerance = interval / 2
        var i = next
        for _ in 0..<ring.count {
            i = (i + ring.count - 1) % ring.count
            let e = ring[i]
            if e.time + tolerance < time { return nil }
            if e.time <= time + tolerance { return (e.entered, e.lost) }
        }
        return nil
    }
}
