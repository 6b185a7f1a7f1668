import Foundation
import Synchronization

/// What the files of one recording share when it splits on rotation: where the first one
/// is (the others are named after it), whether the recording is stopping (no new file
/// then), and why a split could not be made (the recording went on in the file it had).
final class RecordingChain: Sendable {
    let first: URL

    private struct State {
        var stopping = false
        var failures: [String] = []
    }

    private let state = Mutex(State())

    init(first: URL) {
        self.first = first
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
