import GStreamer

/// Puts a subscriber's frames on its own pipeline's timeline while keeping the spacing
/// they were captured with: running time = capture timestamp + a fixed offset, set by the
/// first frame so that it goes out "now".
///
/// Stamping each frame with its arrival time instead (appsrc `do-timestamp`) carries the
/// encoder's and the threads' jitter into the RTP timestamps: on a busy machine two
/// frames a few milliseconds apart land on one tick of a consumer's 1/30 s time base, and
/// ffmpeg warns "non monotonically increasing dts" (and VLC and NVRs judge the rate
/// wrong). The offset stays fixed, so the timestamps are exactly as regular as the
/// camera's; it is set again only when the capture timestamps jump — a new capture
/// pipeline starts from zero — and then never lets the output go back. A plain value:
/// the owner keeps it under its lock.
struct CaptureRetimer {
    /// running time = capture timestamp + offset.
    private(set) var offset: Int64?
    /// The last running time handed out.
    private(set) var last: ClockTime?

    /// The furthest a frame may land ahead of the pipeline's clock before the mapping is
    /// set again (the capture timestamps jumped forward).
    static let maxAhead: ClockTime = ClockTime.second
    /// The least step between two frames after the mapping is set again.
    static let minStep: ClockTime = 1_000_000

    /// The running time for a frame captured at `capture`, handed on when the subscriber's
    /// pipeline is at running time `now`.
    mutating func runningTime(capture: ClockTime, now: ClockTime) -> ClockTime {
        var candidate = offset.map { Int64(clamping: capture) &+ $0 }
        if let c = candidate, c < 0 || (last.map { c <= Int64(clamping: $0) } ?? false)
            || c > Int64(clamping: now + Self.maxAhead) {
            candidate = nil
        }
        let time: ClockTime
        if let candidate {
            time = ClockTime(candidate)
        } else {
            // First frame, or the capture timestamps jumped: start again from now, after the last.
            time = max(now, last.map { $0 + Self.minStep } ?? 0)
            offset = Int64(clamping: time) &- Int64(clamping: capture)
        }
        last = time
        return time
    }
}
