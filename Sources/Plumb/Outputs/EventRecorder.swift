import FoundationEssentials
import Glibc
import GStreamer
import PlumbMedia
import Synchronization
import PlumbRotation

/// Where an event clip's file is while it is written: told when it starts and when it is
/// done with, so that something deleting old files (retention) leaves it alone.
public protocol EventFileTracker: Sendable {
    func inUse(_ path: String)
    func released(_ path: String)
}

/// Event clips with pre-record: the last `preSeconds` of encoded video are kept in memory
/// (`PreRecordRing`, whole GOPs, at most `maxBufferBytes`); a trigger writes a clip from the
/// keyframe at or before (trigger − `preSeconds`) to (trigger + post seconds). A trigger
/// while a clip records extends it (to the later end, at most `maxSeconds` from its first
/// frame). One clip records at a time, and it streams to disk (`EventClipWriter`): memory
/// is the ring and what the muxer has not written yet, however many triggers come.
///
/// Time is the capture pipeline's running time (the frames' own timestamps); a trigger is
/// placed on it from the newest frame's arrival, so "5 s before" is 5 s of frames.
/// Outlives capture sessions: `output()` makes the branch for each one; when a session
/// goes (camera lost, stop) the clip being written ends with what it has.
public final class EventRecorder: Sendable {
    public struct Settings: Sendable, Equatable {
        public var preSeconds: Double = 5
        public var postSeconds: Double = 10
        public var maxSeconds: Double = 300
        public var maxBufferBytes = 32 << 20
        public var codec: VideoCodec = .h264
        public init() {}
    }

    /// For `GET /status`.
    public struct Status: Sendable, Equatable, Encodable {
        /// Seconds and bytes of video in the ring, and its bounds.
        public var ringSeconds: Double
        public var ringBytes: Int
        public var ringFrames: Int
        public var maxBufferBytes: Int
        public var preSeconds: Double
        /// Triggers taken, clips started and finished (written) since start.
        public var triggers: Int
        public var clipsStarted: Int
        public var clipsWritten: Int
        /// The clip being written, nil when none.
        public var current: EventClipFacts?
        /// The last finished clip, nil before the first.
        public var last: EventClipFacts?

        enum CodingKeys: String, CodingKey {
            case ringSeconds = "ring_seconds", ringBytes = "ring_bytes", ringFrames = "ring_frames"
            case maxBufferBytes = "max_buffer_bytes", preSeconds = "pre_seconds"
            case triggers, clipsStarted = "clips_started", clipsWritten = "clips_written", current, last
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode((ringSeconds * 1000).rounded() / 1000, forKey: .ringSeconds)
            try c.encode(ringBytes, forKey: .ringBytes)
            try c.encode(ringFrames, forKey: .ringFrames)
            try c.encode(maxBufferBytes, forKey: .maxBufferBytes)
            try c.encode(preSeconds, forKey: .preSeconds)
            try c.encode(triggers, forKey: .triggers)
            try c.encode(clipsStarted, forKey: .clipsStarted)
            try c.encode(clipsWritten, forKey: .clipsWritten)
            try c.encode(current, forKey: .current)  // null when none
            try c.encode(last, forKey: .last)
        }
    }

    /// A trigger's answer: the clip's facts as they stand, and whether it extended a running clip.
    public struct Trigger: Sendable {
        public var facts: EventClipFacts
        public var extended: Bool
    }

    /// Frames in the ring: the encoded access unit, its caps, when it arrived.
    struct Frame: Sendable {
        var buffer: Buffer
        var caps: Caps?
        var wall: Date
    }

    public let settings: Settings
    public let choice: EncoderChoice
    /// Hidden temporary files start with this before their real name (`.event-tmp-NAME`).
    public static let temporaryPrefix = ".event-tmp-"

    private struct State {
        var ring: PreRecordRing<Frame>
        var attached = false
        var angle = RotationAngle.degrees0
        /// The newest frame: its time, and when it arrived.
        var newest: (time: ClockTime, at: ContinuousClock.Instant)?
        var active: EventClip?
        var running: [EventClip] = []
        var triggers = 0
        var clipsStarted = 0
        var clipsWritten = 0
        var last: EventClipFacts?
        /// `finish()` was called: no new clip.
        var closed = false
        /// Resolved by the ring's first frame from the current source (`firstFrame(within:)`).
        /// Replaced only once resolved: a waiter from before a source change waits for the
        /// next source's first frame.
        var firstFrame = OneShot<Void>()

        mutating func awaitFirstFrame() {
            if firstFrame.result != nil { firstFrame = OneShot() }
        }
    }

    private let state: Mutex<State>
    /// One trigger at a time: deciding "extend or new clip" and starting the clip's pipeline.
    private let triggerLock = Mutex(())
    private let clock = ContinuousClock()
    private let matrixWriter: (any TrackMatrixWriter)?
    private let tracker: (any EventFileTracker)?
    private let finished: @Sendable (EventClipFacts) -> Void

    /// - Parameters:
    ///   - tracker: told of each clip's temporary file while it is written.
    ///   - finished: each clip's facts once its file is complete (or failed), on a task.
    public init(settings: Settings, matrixWriter: (any TrackMatrixWriter)? = MP4MatrixWriter(),
                tracker: (any EventFileTracker)? = nil,
                isAvailable: @Sendable (String) -> Bool = { Gst.hasElement($0) },
                finished: @escaping @Sendable (EventClipFacts) -> Void = { _ in }) throws {
        self.settings = settings
        choice = try EncoderChoice.choose(settings.codec, available: isAvailable)
        state = Mutex(State(ring: PreRecordRing(seconds: settings.preSeconds, maxBytes: settings.maxBufferBytes)))
        self.matrixWriter = matrixWriter
        self.tracker = tracker
        self.finished = finished
    }

    public var status: Status {
        state.withLock { s in
            Status(ringSeconds: s.ring.span, ringBytes: s.ring.bytes, ringFrames: s.ring.frames.count,
                   maxBufferBytes: settings.maxBufferBytes, preSeconds: settings.preSeconds, triggers: s.triggers,
                   clipsStarted: s.clipsStarted, clipsWritten: s.clipsWritten, current: s.active?.facts, last: s.last)
        }
    }

    /// Waits until the ring holds a frame of the current source (it starts at a keyframe),
    /// at most `limit`: a branch attached for a trigger has nothing to start a clip from before.
    /// - Throws: `CaptureError.timedOut` when none came in time.
    public func firstFrame(within limit: Duration) async throws {
        let shot = state.withLock { $0.firstFrame }
        try await shot.value(timeout: limit, what: "the event recorder's first keyframe")
    }

    // MARK: Triggers

    /// Starts a clip, or extends the one being written. `postSeconds` (nil: the setting)
    /// from now; `files` names a new clip's file and its temporary (hidden) file.
    /// - Throws: `CaptureError.notAttached` before the camera delivered a frame;
    ///   `.invalidArgument` for a negative `postSeconds` (a long one is capped at `maxSeconds`); what making the file's
    ///   pipeline threw; `.closed` after `finish()`.
    public func trigger(postSeconds: Double? = nil, files: () -> (target: URL, temporary: URL)) throws -> Trigger {
        let post = postSeconds ?? settings.postSeconds
        guard post >= 0, post.isFinite else {
            throw CaptureError.invalidArgument("post-seconds \(post) is out of range: use 0 or more seconds")
        }
        return try triggerLock.withLock { _ in
            let wall = Date()
            let (newest, active, angle) = try state.withLock { s in
                guard !s.closed else { throw CaptureError.closed }
                s.triggers += 1
                return (s.attached && !s.ring.frames.isEmpty ? s.newest : nil, s.active, s.angle)
            }
            guard let newest else {
                throw CaptureError.notAttached("the event recorder (no keyframe from the camera yet)")
            }
            let time = newest.time + ClockTime((clock.now - newest.at).nanoseconds)
            if let active, active.extend(trigger: time, at: wall, postSeconds: post) {
                return Trigger(facts: active.facts, extended: true)
            }
            let (target, temporary) = files()
            let writer = try EventClipWriter(temporary: temporary, target: target, codec: choice.codec, angle: angle,
                                             matrixWriter: matrixWriter)
            let clip = EventClip(writer: writer, trigger: time, at: wall, preSeconds: settings.preSeconds,
                                 postSeconds: post, maxSeconds: settings.maxSeconds, codec: choice.codec, angle: angle)
            tracker?.inUse(temporary.path)
            let started = state.withLock { s -> Bool in
                let window = ClockTime((settings.preSeconds * Double(ClockTime.second)).rounded())
                let from = s.ring.frames(from: time > window ? time - window : 0)
                guard let first = from.first else { return false }
                clip.begin(with: first)
                for frame in from.dropFirst() where !clip.push(frame) { break }
                s.active = clip
                s.running.append(clip)
                s.clipsStarted += 1
                return true
            }
            guard started else {
                // The camera was reopened in between (its ring starts again): no clip, no file.
                writer.stop()
                Task {
                    _ = await writer.finish()
                    unlink(target.path)
                    self.tracker?.released(temporary.path)
                }
                throw CaptureError.notAttached("the event recorder (no keyframe from the camera yet)")
            }
            Task { await self.complete(clip) }
            return Trigger(facts: clip.facts, extended: false)
        }
    }

    private func complete(_ clip: EventClip) async {
        let failure = await clip.writer.finish()
        let facts = clip.finished(error: failure)
        tracker?.released(clip.writer.temporary.path)
        state.withLock { s in
            s.running.removeAll { $0 === clip }
            if s.active === clip { s.active = nil }
            if failure == nil { s.clipsWritten += 1 }
            s.last = facts
        }
        clip.done.succeed(())
        finished(facts)
    }

    /// Ends the clip being written where it stands and waits for every clip's file; later
    /// triggers throw `CaptureError.closed`.
    public func finish() async {
        let (active, running) = state.withLock { s in
            defer {
                s.active = nil
                s.closed = true
            }
            return (s.active, s.running)
        }
        if let active { active.end(stopping: true) }
        for clip in running { try? await clip.done.value(timeout: .seconds(20), what: "finishing an event clip") }
    }

    /// Gives the temporary files a crash left in `folder` their real names, so the start-up
    /// repair (which skips hidden files) makes them normal MP4s and the listing shows them.
    /// Returns the names given.
    @discardableResult
    public static func recoverLeftovers(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var recovered: [String] = []
        for name in names.sorted() where name.hasPrefix(temporaryPrefix) && name.hasSuffix(".mp4") {
            let real = String(name.dropFirst(temporaryPrefix.count))
            guard !real.isEmpty, !real.hasPrefix("."), !FileManager.default.fileExists(atPath: folder + "/" + real),
                  rename(folder + "/" + name, folder + "/" + real) == 0 else { continue }
            recovered.append(real)
        }
        return recovered
    }

    // MARK: From the branch

    /// The capture angle each new clip carries (its branch sets it; so does whoever feeds the
    /// ring from a shared encoding).
    public func set(angle: RotationAngle) { state.withLock { $0.angle = angle } }

    /// Fills the ring from `stream` (a shared encoding of the recording codec, e.g.
    /// `MainEncodingOutput`'s) instead of a branch of its own, from its next keyframe, until
    /// the subscription is cancelled — then the clip being written ends with what it has.
    /// Call again for each new source (its timestamps start again).
    public func follow(_ stream: EncodedStream) -> StreamSubscription {
        sourceAttached()
        return stream.subscribe(name: "ring", onEnd: { [weak self] _ in self?.sourceDetached() }) { [weak self] buffer, caps in
            self?.receive(buffer, caps: caps)
        }
    }

    private func sourceAttached() {
        state.withLock { s in
            s.ring.removeAll()  // a new source: its timestamps start again
            s.newest = nil
            s.awaitFirstFrame()
            s.attached = true
        }
    }

    /// The session's branch is gone: the clip being written ends with what it has.
    private func sourceDetached() {
        let active = state.withLock { s in
            defer {
                s.active = nil
                s.attached = false
                s.ring.removeAll()
                s.awaitFirstFrame()
            }
            return s.active
        }
        active?.end(stopping: false)
    }

    /// One access unit of the followed stream, on its streaming thread: into the ring, and
    /// into the clip being written, which ends at the first frame past its end.
    private func receive(_ buffer: Buffer, caps: Caps?) {
        guard let time = buffer.pts else { return }
        let frame = PreRecordRing<Frame>.Frame(payload: Frame(buffer: buffer, caps: caps, wall: Date()),
                                               time: time, bytes: buffer.size, isKeyframe: buffer.isKeyframe)
        let now = clock.now
        let (ending, first) = state.withLock { s -> (EventClip?, OneShot<Void>?) in
            s.newest = (time, now)
            let wasEmpty = s.ring.frames.isEmpty
            s.ring.append(frame)  // refused until a keyframe
            let first = wasEmpty && !s.ring.frames.isEmpty ? s.firstFrame : nil
            guard let clip = s.active, !clip.push(frame) else { return (nil, first) }
            s.active = nil
            return (clip, first)
        }
        first?.succeed(())
        ending?.end(stopping: false)
    }
}
