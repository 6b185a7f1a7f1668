import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import PlumbDescription
import PlumbLocation
import PlumbMedia
import Synchronization
import PlumbRotation

/// A clip of a number of frames taken from an encoded stream — the daemon's main encoding,
/// for `POST /clip` — with no encoder of its own: it subscribes to the stream, which asks its
/// encoder for a keyframe at once, and from that keyframe on writes `frames` frames into an
/// MP4 (`EventClipWriter`: fragmented, the angle in the track matrix, the location in every
/// movie header). Its facts are a recording's (`RecordingFacts`).
public final class EncodedClip: Sendable {
    public let url: URL
    private let writer: EventClipWriter
    private let wanted: Int
    private let codec: VideoCodec
    private let encoder: String
    private let size: VideoSize
    private let angle: RotationAngle
    private let location: MP4LocationWriter?
    private let subscription = Mutex<StreamSubscription?>(nil)

    private struct State {
        var frames = 0
        var first: ClockTime?
        var lastEnd: ClockTime = 0
        var firstDate = Date()
        var clockSynchronized: Bool?
        var ended = false
        var watchers: [Int: @Sendable () -> Void] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    /// Starts the clip at the stream's next keyframe.
    /// - Parameters:
    ///   - encoder: the element that makes the stream's frames, for the facts.
    ///   - size: the frames' size, for the facts.
    public init(stream: EncodedStream, url: URL, codec: VideoCodec, encoder: String, size: VideoSize, frames: Int,
                angle: RotationAngle, location: GeoLocation?) throws {
        self.url = url
        self.codec = codec
        self.encoder = encoder
        self.size = size
        self.angle = angle
        wanted = max(1, frames)
        self.location = location.flatMap { $0.isValid ? MP4LocationWriter(location: $0) : nil }
        writer = try EventClipWriter(temporary: url, target: url, codec: codec, angle: angle,
                                     matrixWriter: MP4MatrixWriter(), location: self.location)
        // A write that fails (a full disk) ends the clip there, not after its seconds.
        writer.follow { [weak self] in self?.cut() }
        let taken = stream.subscribe(name: "clip") { [weak self] buffer, caps in self?.take(buffer, caps: caps) }
        subscription.withLock { $0 = taken }
    }

    /// Frames written so far.
    public var frames: Int { state.withLock { $0.frames } }

    /// Whether it has all its frames (or was cut).
    public var isComplete: Bool { state.withLock { $0.ended } }

    /// Calls `watcher` (on a streaming thread: it must only hand off) at every frame and at
    /// the end, until `unwatch`.
    public func watch(_ watcher: @escaping @Sendable () -> Void) -> Int {
        state.withLock { s in
            s.nextWatcher += 1
            s.watchers[s.nextWatcher] = watcher
            return s.nextWatcher
        }
    }

    public func unwatch(_ token: Int) { _ = state.withLock { $0.watchers.removeValue(forKey: token) } }

    /// One access unit from the stream (from a keyframe on), on its streaming thread.
    private func take(_ buffer: Buffer, caps: Caps?) {
        guard let pts = buffer.pts else { return }
        let (time, last, watchers): (ClockTime?, Bool, [@Sendable () -> Void]) = state.withLock { s in
            guard !s.ended else { return (nil, false, []) }
            if s.first == nil {
                s.first = pts
                s.firstDate = Date()
                s.clockSynchronized = WallClock.isSynchronized()
            }
            let first = s.first ?? pts
            s.frames += 1
            s.lastEnd = max(s.lastEnd, pts + (buffer.duration ?? 0))
            if s.frames >= wanted { s.ended = true }
            return (pts >= first ? pts - first : 0, s.ended, Array(s.watchers.values))
        }
        guard let time else { return }
        _ = writer.push(buffer, caps: caps, time: time)
        if last { end() }
        for watcher in watchers { watcher() }
    }

    /// Ends the clip where it stands (a stop cuts it short).
    public func cut() {
        let watchers = state.withLock { s in
            s.ended = true
            return Array(s.watchers.values)
        }
        end()
        for watcher in watchers { watcher() }
    }

    private func end() {
        subscription.withLock { s in
            s?.cancel()
            s = nil
        }
        writer.end()
    }

    /// Waits until the file is finished: its facts, and why it failed (`storageFull` for a
    /// full disk, `pipeline` otherwise), if it did.
    public func finish() async -> (facts: RecordingFacts, error: CaptureError?) {
        let ended = state.withLock { s in
            defer { s.ended = true }
            return s.ended
        }
        if !ended { end() }
        let failure = await writer.finish()
        let s = state.withLock { $0 }
        var frames = s.frames
        if failure != nil { frames = (try? MP4File.videoSampleCount(path: url.path)) ?? 0 }
        let bytes = Path.size(url.path) ?? 0
        // The frames written span first ... lastEnd; a file that failed holds fewer of them.
        let seconds = Double(frames) * Double(s.lastEnd - (s.first ?? s.lastEnd)) / 1e9 / Double(max(1, s.frames))
        var facts = RecordingFacts(codec: codec.rawValue, encoder: encoder, width: size.width, height: size.height,
                                   seconds: (seconds * 1000).rounded() / 1000, frames: frames, bytes: bytes,
                                   startedAt: s.firstDate.iso8601Milliseconds, orientation: angle.degrees, file: url.path)
        facts.clockSynchronized = s.clockSynchronized
        if let location, location.statistics.headers > 0 { facts.set(location.location) }
        guard let failure else { return (facts, nil) }
        facts.error = failure.diskFull ? "No space left on device: cannot write \(url.path)" : "\(failure)"
        return (facts, failure.diskFull ? .storageFull(output: "clip", path: url.path, failure) : .pipeline(failure))
    }
}
