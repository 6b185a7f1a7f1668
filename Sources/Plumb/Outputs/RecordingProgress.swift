import FoundationEssentials
import Glibc
import GStreamer

/// What a recording file's frames have told since its first one reached the muxer: it
/// exists from that frame on (`RecordingStage.recording`), so nothing in it is optional
/// that the first frame settles.
struct RecordingProgress: Sendable {
    /// The tee's counts for this branch (`BranchEntryLog`): frames entered and lost.
    typealias Counts = (entered: Int, lost: Int)

    /// The first frame's running time, and when it reached the muxer on the wall clock.
    let firstPTS: ClockTime
    let firstDate: Date
    /// The kernel's word on the wall clock when `firstDate` was read (nil: it did not say).
    let clockSynchronized: Bool?
    /// The tee's counts just before the file's first frame.
    let entriesBeforeFirst: Counts
    private(set) var frames = 1
    private(set) var lastPTS: ClockTime
    private(set) var lastEnd: ClockTime
    /// The tee's counts at the file's latest frame so far (nil: no longer among its recent entries).
    private(set) var entriesAtLast: Counts?

    /// The first frame, from `pts` to `end`; `counts`: the tee's counts at it, read now while
    /// it is among the branch's recent entries.
    init(first pts: ClockTime, end: ClockTime, at date: Date, clockSynchronized: Bool?, counts: Counts?) {
        firstPTS = pts
        firstDate = date
        self.clockSynchronized = clockSynchronized
        entriesBeforeFirst = counts.map { ($0.entered - 1, $0.lost) } ?? (0, 0)
        lastPTS = pts
        lastEnd = end
        entriesAtLast = counts
    }

    /// Another frame, from `pts` to `end`; `counts`: the tee's counts at it.
    mutating func add(pts: ClockTime, end: ClockTime, counts: () -> Counts?) {
        frames += 1
        if pts >= lastPTS { entriesAtLast = counts() ?? entriesAtLast }
        lastPTS = max(lastPTS, pts)
        lastEnd = max(lastEnd, end)
    }

    /// From the first frame's start to the latest end.
    var seconds: Double { Double(lastEnd - firstPTS) / Double(ClockTime.second) }
}
