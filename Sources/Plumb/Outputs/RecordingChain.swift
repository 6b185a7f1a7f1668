import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// What the segments (files) of one recording share, however it rolls over to its next
/// one (`FileSwap`: on time, on a turn, on new caps): which segment is the latest, the
/// `Recording` that lists them, whether the recording is stopping (no new segment then),
/// why a roll could not be made (the recording went on in the file it had), and the
/// recording's length limit (`RecordingOptions.length`), counted from its first frame.
final class RecordingChain: Sendable {
    let length: ClockTime?
    /// Resolved when the first frame past `length` arrives.
    let full = OneShot<Void>()

    private struct State {
        var stopping = false
        var failures: [String] = []
        var firstPTS: ClockTime?
        /// The segment being written last (the latest the recording rolled over to).
        var latest: ObjectIdentifier?
        /// The caller's handle, which keeps the segments (weak: it holds the outputs, which
        /// hold this chain).
        weak var recording: Recording?
        /// Called at every frame a segment's muxer gets and at every segment's end.
        var watchers: [Int: @Sendable () -> Void] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    init(length: Duration? = nil) {
        self.length = length?.nanoseconds
    }

    /// The recording that lists the segments, once the session handed it out.
    func listed(in recording: Recording) {
        state.withLock {
            $0.recording = recording
            if $0.latest == nil { $0.latest = ObjectIdentifier(recording.output) }
        }
    }

    /// The recording rolled over to `next` (its frames go there now): the one place a
    /// segment joins the recording.
    func rolledOver(to next: RecordingOutput) {
        let recording = state.withLock { s in
            s.latest = ObjectIdentifier(next)
            return s.recording
        }
        recording?.add(next)
    }

    /// Calls `watcher` (on a streaming thread, so it must be quick) at every frame a segment's
    /// muxer gets and when a segment ends, until `unwatch(_:)`; returns its token.
    func watch(_ watcher: @escaping @Sendable () -> Void) -> Int {
        state.withLock { s in
            s.nextWatcher += 1
            s.watchers[s.nextWatcher] = watcher
            return s.nextWatcher
        }
    }

    func unwatch(_ token: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }

    /// A segment got a frame, or ended: tells the watchers.
    func changed() {
        let watchers = state.withLock { $0.watchers.isEmpty ? [] : Array($0.watchers.values) }
        for watcher in watchers { watcher() }
    }

    /// Whether `segment` is the latest (no roll moved the recording on from it).
    func isLatest(_ segment: RecordingOutput) -> Bool {
        state.withLock { ($0.latest ?? ObjectIdentifier(segment)) == ObjectIdentifier(segment) }
    }

    /// Streaming thread: whether the frame stamped `pts` (running time), lasting `duration`,
    /// is within the length. In when it starts more than half a frame before the end, so
    /// frame timestamps rounded to the nanosecond cannot add or lose one.
    func admits(pts: ClockTime, duration: ClockTime) -> Bool {
        guard let length else { return true }
        let first = state.withLock { s in
            let first = s.firstPTS ?? pts
            s.firstPTS = first
            return first
        }
        if pts < first || pts - first + duration / 2 < length { return true }
        full.succeed(())
        return false
    }

    /// Where the length ends (running time), once a frame past it has arrived; nil before,
    /// and without a length.
    var end: ClockTime? { full.result != nil ? lengthEnd : nil }

    /// Where the length will end (running time), once the first frame is in; nil before, and
    /// without a length.
    var lengthEnd: ClockTime? {
        guard let length else { return nil }
        return state.withLock { $0.firstPTS }.map { $0 + length }
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    func stop() { state.withLock { $0.stopping = true } }

    var failures: [String] { state.withLock { $0.failures } }

    func record(failure: String) {
        state.withLock { s in
            s.failures.append(failure)
            if s.failures.count > 16 { s.failures.removeFirst() }
        }
    }

    /// The file named after `first` for its `number`th segment (2, 3 ...): `NAME-N.EXT`
    /// beside it, the next free number from `number` on — an existing file is never replaced.
    static func url(after first: URL, number: Int) -> URL {
        let folder = first.deletingLastPathComponent()
        let ext = first.pathExtension
        let stem = first.deletingPathExtension().lastPathComponent
        var n = number
        while true {
            let name = ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)"
            let candidate = folder.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            n += 1
        }
    }
}
