import Foundation
import GStreamer
import Synchronization

/// What the files of one recording share when it rolls over to its next file on a turn or
/// on new caps (`FileSwap`; its segments are `RecordingOutput.successor`s): where the first one
/// is (the others are named after it), whether the recording is stopping (no new file
/// then), why a split could not be made (the recording went on in the file it had), and
/// the recording's length limit (`RecordingOptions.length`), counted from its first frame.
final class RecordingChain: Sendable {
    let first: URL
    let length: ClockTime?
    /// Resolved when the first frame past `length` arrives.
    let full = OneShot<Void>()

    private struct State {
        var stopping = false
        var failures: [String] = []
        var firstPTS: ClockTime?
    }

    private let state = Mutex(State())

    init(first: URL, length: Duration? = nil) {
        self.first = first
        self.length = length?.nanoseconds
    }

    /// Streaming thread: whether the frame stamped `pts` (running time), lasting `duration`,
    /// is within the length. In when it starts more than half a frame before the end, so
    /// frame timestamps rounded to the nanosecond cannot add or lose one.
    func admits(pts: ClockTime, duration: ClockTime) -> Bool {
        guard let length else { return true }
        let first = state.withLock { s in
            if s.firstPTS == nil { s.firstPTS = pts }
            return s.firstPTS!
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

    /// The file for segment `number` (2, 3 ...): `NAME-N.EXT` beside the first, the next
    /// free number from `number` on — an existing file is never replaced.
    func url(forSegment number: Int) -> URL {
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
