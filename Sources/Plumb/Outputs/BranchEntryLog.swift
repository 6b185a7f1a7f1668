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

    init(rate: FrameRate) {
        gaps = FrameGaps(rate: rate)
        ring.reserveCapacity(Self.capacity)
    }

    /// A frame entered the branch (its buffer offset and running time, each nil when unknown).
    mutating func add(offset: UInt64?, time: ClockTime?) {
        gaps.add(offset: offset, time: time)
        entered += 1
        guard let time else { return }
        let entry = Entry(time: time, entered: entered, lost: gaps.lost)
        if ring.count < Self.capacity { ring.append(entry) } else { ring[next] = entry }
        next = (next + 1) % Self.capacity
    }

    /// The counts at the frame stamped `time` (within half a frame), while it is among the
    /// recent ones: `entered` counts it, `lost` the frames missing before it.
    func counts(at time: ClockTime) -> (entered: Int, lost: Int)? {
        let tolerance = gaps.interval / 2
        var best: Entry?
        for e in ring {
            let distance = e.time > time ? e.time - time : time - e.time
            guard distance <= tolerance else { continue }
            if best.map({ distance < ($0.time > time ? $0.time - time : time - $0.time) }) ?? true { best = e }
        }
        return best.map { ($0.entered, $0.lost) }
    }

    /// The frames that entered stamped after `after` and before `before` (half a frame's
    /// slack at both ends), while they are among the recent ones.
    func entered(after: ClockTime, before: ClockTime) -> Int {
        let tolerance = gaps.interval / 2
        return ring.filter { $0.time > after + tolerance && $0.time + tolerance < before }.count
    }
}
