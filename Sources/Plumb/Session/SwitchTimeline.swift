import GStreamer
import Synchronization

/// Keeps the frames entering the zoom crop in time order and on one frame grid across a
/// camera switch. A new live source stamps its first frame from the clock as it starts,
/// which can fall within the old source's last frame interval — a muxer would then get
/// two frames in one frame slot (a non-monotonic DTS that ffmpeg warns about). After
/// `arm()`, the new source's frames are dropped until one comes a full interval after the
/// old source's last; that one and every later one are moved by the same amount (less
/// than half an interval) onto the old source's grid. Off the grid, a file's frames are
/// 1.05 intervals apart at the switch: readers then take its rate for 120 or 240 fps and
/// fall back on the average rate, a little under 30, whose slots two frames can share
/// ("non monotonically increasing dts" from ffmpeg). Frames of a source that was never
/// switched pass untouched (a camera's own jitter is left alone). Compared in running
/// time, so each source's own segment counts.
final class SwitchTimeline: Sendable {
    private struct State {
        var last: ClockTime?
        var armed = false
        /// What the current source's frames are moved by, in nanoseconds (set at its first frame).
        var shift: Int64 = 0
    }
    private let state = Mutex(State())
    private let interval: ClockTime
    /// Slack for the nanosecond rounding of a frame that does come a full interval later;
    /// no more: a muxer that floors times to frame slots would put a frame even a little
    /// under an interval later into the same slot.
    private static let slack: ClockTime = 2

    /// Watches `pad` (the zoom crop's sink pad); `rate` is the tee's frame rate.
    init(on pad: Pad, rate: FrameRate) {
        interval = rate.frameDuration
        pad.addProbe(.buffer) { [weak self] probed, info in
            guard let self, let pts = info.bufferPTS, let time = probed.runningTime(of: pts) else { return .ok }
            let shift: Int64? = self.state.withLock { s in
                if s.armed, let last = s.last {
                    if time + Self.slack < last + self.interval { return nil }
                    s.shift = Self.shift(onto: last, interval: self.interval, from: time)
                }
                s.armed = false
                s.last = Self.moved(time, by: s.shift)
                return s.shift
            }
            guard let shift else { return .drop }
            if shift != 0 { info.retimeBuffer(pts: Self.moved(pts, by: shift), dts: info.bufferDTS.map { Self.moved($0, by: shift) }) }
            return .ok
        }
    }

    /// Called once the old source has stopped: the next frames are the new source's.
    func arm() { state.withLock { $0.armed = true } }

    /// How far `time` (at least an interval after `last`, less `slack`) moves to lie a
    /// whole number of intervals after `last`: to the nearest slot, never the one of `last`.
    static func shift(onto last: ClockTime, interval: ClockTime, from time: ClockTime) -> Int64 {
        let slots = max(1, ((Double(time) - Double(last)) / Double(interval)).rounded())
        return Int64(last + ClockTime(slots) * interval) - Int64(time)
    }

    static func moved(_ time: ClockTime, by shift: Int64) -> ClockTime {
        shift < 0 && ClockTime(-shift) > time ? 0 : ClockTime(Int64(time) + shift)
    }
}
