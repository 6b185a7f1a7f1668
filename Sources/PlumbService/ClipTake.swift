import Plumb
import Synchronization

/// What a `POST /clip` records with: a clip of the main encoding (`SharedClip`), or a short
/// recording with an encoder of its own (`Recording`). `SessionBackend.recordClip` waits on
/// its frames and finalizes it the same way either way.
protocol ClipTake: Sendable {
    /// Frames written so far.
    var frames: Int { get }
    /// Whether it ended by itself (failed, or has every frame).
    var ended: Bool { get }
    /// Calls `watcher` (on a streaming thread) at every frame and at its end.
    func watch(_ watcher: @escaping @Sendable () -> Void) -> Int
    func unwatch(_ token: Int)
    /// Ends it (where it stands) and waits for its file, whatever happens to the task that
    /// asked: a cancelled wait would leave the file unfinished.
    func finalize() async throws -> RecordingFacts
    /// Whether a write error (a full disk, a failing card) ended it.
    var storageFailed: Bool { get }
    /// The facts of a clip a failure ended, as its file holds them.
    var factsAfterFailure: RecordingFacts? { get }
}

extension Recording: ClipTake {
    var frames: Int { progress.frames }
    var ended: Bool { output.finished.result != nil }
    func finalize() async throws -> RecordingFacts { try await Task { try await self.stop() }.value }
    var storageFailed: Bool { StorageFailure.failed(self) }
}

/// A clip of the main encoding, which it gives back (`release`) once its file is finished.
final class SharedClip: ClipTake {
    let clip: EncodedClip
    private let release: @Sendable () async -> Void
    private let outcome = OneShot<(facts: RecordingFacts, error: CaptureError?)>()
    private let finishing = Mutex(false)

    init(_ clip: EncodedClip, release: @escaping @Sendable () async -> Void) {
        self.clip = clip
        self.release = release
    }

    var frames: Int { clip.frames }
    var ended: Bool { clip.isComplete }
    func watch(_ watcher: @escaping @Sendable () -> Void) -> Int { clip.watch(watcher) }
    func unwatch(_ token: Int) { clip.unwatch(token) }

    func finalize() async throws -> RecordingFacts {
        let first = finishing.withLock { f in
            defer { f = true }
            return !f
        }
        if first {
            let clip = self.clip, release = self.release, outcome = self.outcome
            Task {
                let result = await clip.finish()
                await release()
                outcome.succeed(result)
            }
        }
        let result = try await outcome.value()
        if let error = result.error { throw error }
        return result.facts
    }

    var storageFailed: Bool { outcome.result.map { (try? $0.get())?.error?.isStorageFailure ?? false } ?? false }

    var factsAfterFailure: RecordingFacts? {
        guard case .success(let result)? = outcome.result, result.error != nil else { return nil }
        return result.facts
    }
}
