import GStreamer

/// Counts the frames missing between consecutive frames of one stream, in constant memory.
///
/// A frame's buffer offset, when valid, is its number in the camera's sequence (`v4l2src`
/// puts the driver's V4L2 sequence number there, `videotestsrc` its frame count): a step
/// of k means k-1 frames were dropped before this point. The step between the timestamps,
/// in frame intervals of the negotiated rate, says the same: a gap of k intervals (rounded,
/// so a camera's jitter counts nothing) means k-1 frames missing. With both, the smaller
/// count wins: a camera slowing down in low light keeps its sequence numbers contiguous
/// while its frames come further apart, and an offset that is no frame number (a byte
/// position) jumps while the times do not. Without a usable offset (unset, lost in a
/// decoder, going back with a new source) the times alone count.
///
/// A source whose offsets are its driver's own frame numbers (`numbered`: a V4L2 camera)
/// is counted by them alone: its times may be v4l2src's clock at dequeue rather than the
/// driver's (v4l2src drops a driver's timestamps it cannot correlate with a clock, as under
/// emulation), and their jitter would then hide frames the driver says it skipped.
struct FrameGaps: Sendable {
    /// One frame's duration at the negotiated rate.
    var interval: ClockTime
    /// Whether the offsets are the driver's frame numbers, to be counted by alone.
    var numbered: Bool
    /// Frames seen.
    private(set) var frames = 0
    /// Frames missing between them, so far.
    private(set) var lost = 0
    private var lastOffset: UInt64?
    private var lastTime: ClockTime?

    init(rate: FrameRate, numbered: Bool = false) {
        interval = rate.frameDuration
        self.numbered = numbered
    }

    /// Adds a frame (its buffer offset and running time, each nil when unknown); returns
    /// how many frames went missing just before it.
    @discardableResult
    mutating func add(offset: UInt64?, time: ClockTime?) -> Int {
        var missing = 0
        if frames > 0 {
            var byTime: Int?
            if let time, let last = lastTime, time > last, interval > 0 {
                let slots = (Double(time - last) / Double(interval)).rounded()
                byTime = max(0, Int(min(slots, 1e12)) - 1)
            }
            if numbered, let offset, let last = lastOffset {
                // A number repeated (a driver catching up) is no loss either.
                missing = offset > last ? Int(min(offset - last - 1, UInt64(Int.max / 2))) : 0
            } else if let offset, let last = lastOffset, offset > last {
                let byOffset = Int(min(offset - last - 1, UInt64(Int.max / 2)))
                missing = min(byOffset, byTime ?? byOffset)
            } else {
                missing = byTime ?? 0
            }
        }
        frames += 1
        lost += missing
        lastOffset = offset
        lastTime = time ?? lastTime
        return missing
    }

    /// Starts over from the next frame (a new source, a new rate): the step to it is not counted.
    mutating func restart(rate: FrameRate, numbered: Bool = false) {
        interval = rate.frameDuration
        self.numbered = numbered
        lastOffset = nil
        lastTime = nil
        frames = 0
    }
}
