import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// A recording in progress: `stop()` finalizes the file while the session keeps running.
/// It is one or more segments (files): whatever rolls it over to its next one — on time
/// (`CaptureSession.rollOver(_:to:fileLength:)`), on a turn (`RecordingOptions.splitOnRotation`),
/// on new caps (a camera switch) — the next file joins `segments` the same way.
public final class Recording: Sendable {
    public let session: CaptureSession
    /// The first file's output.
    public let output: RecordingOutput
    /// The segments kept (`forget(_:)` lets go of finished ones), in order.
    private let kept: Mutex<[RecordingOutput]>

    init(session: CaptureSession, output: RecordingOutput) {
        self.session = session
        self.output = output
        kept = Mutex([output])
        output.chain.listed(in: self)
    }

    /// The first file.
    public var url: URL { output.url }
    /// The codec really used (after any fallback).
    public var codec: VideoCodec { output.choice.codec }

    /// Every segment's output so far (but those let go of), in order; the last is the one
    /// being written. A segment that ended before its first frame left no file and is not
    /// listed, as the facts do not list it (`RecordingFacts.combining`): a split that the next
    /// one overtook before a frame came (a storm of turns on a busy machine). Unless it is
    /// the only one.
    public var segments: [RecordingOutput] {
        let list = kept.withLock { $0 }
        let written = list.filter { segment in
            guard case .success(let facts)? = segment.finished.result else { return true }
            return facts.frames > 0
        }
        return written.isEmpty ? Array(list.prefix(1)) : written
    }

    /// The segment after `segment`, once the recording rolled over from it; nil before.
    public func segment(after segment: RecordingOutput) -> RecordingOutput? {
        kept.withLock { list in
            list.firstIndex { $0 === segment }.flatMap { $0 + 1 < list.count ? list[$0 + 1] : nil }
        }
    }

    /// Lets go of a finished segment that is not the last (a recording that runs for months
    /// must not keep every file's output): `segments`, `stop()` and `factsAfterFailure`
    /// leave it out from then on.
    public func forget(_ segment: RecordingOutput) {
        guard segment.finished.result != nil else { return }
        kept.withLock { list in
            guard list.last !== segment else { return }
            list.removeAll { $0 === segment }
        }
    }

    /// The segment being written (the last).
    public var latest: RecordingOutput { kept.withLock { $0.last ?? output } }

    /// The session rolled the recording over to `next` (`RecordingChain.rolledOver(to:)`).
    func add(_ next: RecordingOutput) {
        kept.withLock { $0.append(next) }
    }

    /// Every file so far, in order.
    public var urls: [URL] { segments.map(\.url) }

    /// Why the recording could not roll over to a new file (it went on in the file it had,
    /// so nothing was lost), or could not give a file its angle (it plays unturned), most
    /// recent last.
    public var rollOverFailures: [String] { output.chain.failures }

    /// The pipeline running time when the session took the request.
    public var requestTime: ClockTime? { output.requestTime }

    /// The running time of the first recorded frame (a keyframe), once it is in.
    public func firstFrameTime(timeout: Duration = .seconds(10)) async throws -> ClockTime {
        try await output.firstFrameTime(timeout: timeout)
    }

    /// Returns when a frame past `RecordingOptions.length` has arrived (the recording holds its
    /// whole length); never without a length, until the waiting task is cancelled.
    public func lengthReached() async throws {
        try await output.chain.full.value(what: "the recording's length")
    }

    /// Calls `watcher` at every frame any file gets and when a file ends (on a streaming
    /// thread: it must be quick, e.g. wake a waiter that reads `progress`), until
    /// `unwatch(_:)` with the returned token.
    package func watch(_ watcher: @escaping @Sendable () -> Void) -> Int { output.chain.watch(watcher) }

    package func unwatch(_ token: Int) { output.chain.unwatch(token) }

    /// Frames and seconds recorded so far (over every file), for a progress line.
    public var progress: (frames: Int, seconds: Double) {
        segments.reduce((0, 0)) { sum, s in
            let p = s.progress
            return (sum.0 + p.frames, sum.1 + p.seconds)
        }
    }

    /// After `stop()` threw because a file ended by itself (a full disk, a failed encoder, the
    /// camera gone): every file's facts as the files hold them, the failed one with its
    /// `error`. nil while the recording runs and after a clean stop.
    public var factsAfterFailure: RecordingFacts? {
        var files: [RecordingFacts] = []
        var failed = false
        for segment in segments {
            switch segment.finished.result {
            case .success(let facts)?:
                files.append(facts)
            case .failure?:
                guard let facts = segment.factsAfterFailure else { return nil }
                files.append(facts)
                failed = true
            case nil:
                return nil
            }
        }
        return failed ? RecordingFacts.combining(files) : nil
    }

    /// Sends EOS into the recording's branch only, waits until every file is finalized,
    /// and returns the facts (every file listed in `segments` when there are several).
    /// Calling it again returns the same facts.
    public func stop() async throws -> RecordingFacts {
        // No new file from here on; a roll under way finishes first.
        await session.stopRollingOver(output.chain)
        let last = latest
        if last.finished.result == nil {
            do {
                try await session.detach(last)
            } catch CaptureError.notAttached {
                // Already taken down (a failure, or the session closed): the result says how.
            }
        }
        var files: [RecordingFacts] = []
        for segment in segments {
            files.append(try await segment.finished.value(timeout: .seconds(30),
                                                          what: "finalizing \(segment.url.lastPathComponent)"))
        }
        return RecordingFacts.combining(files)!
    }
}
