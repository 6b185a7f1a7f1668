import GStreamer
import Synchronization

/// The encoded preview, fanned out: H.264 access units leave the capture pipeline by
/// one appsink and go to any number of subscribers — appsrc elements in other
/// pipelines (the RTSP server's shared media, an upstream publisher) that each run on
/// their own clock, start, fail and stop on their own.
///
/// The appsink's callback only hands off: it pushes into the subscribers' appsrcs,
/// which queue without blocking, and never changes any pipeline's state. A subscriber
/// that refuses a frame (its pipeline stopped: flushing, end of stream) is dropped; one
/// that falls behind (its queue full) skips to the next keyframe instead of growing
/// without bound. Every subscriber starts on a keyframe, asked for the moment it joins.
///
/// Timestamps: each frame reaches a subscriber's appsrc with its capture timestamp, and
/// leaves it on the subscriber pipeline's own timeline with the same spacing
/// (`CaptureRetimer`: a fixed offset, set by the first frame), so RTP timestamps are as
/// regular as the camera's whatever the encoder's and the threads' jitter. The preview
/// encoder makes no B-frames (zerolatency), so decode order is display order.
public final class EncodedStream: Sendable {
    /// Counts since the stream was made.
    public struct Statistics: Sendable, Equatable {
        /// Access units received from the appsink.
        public var frames = 0
        /// Of which keyframes (IDR with SPS/PPS).
        public var keyframes = 0
        /// Their total size in bytes.
        public var bytes = 0
        /// Keyframe wishes from outside (`requestKeyframe`, `subscribe`).
        public var keyframeWishes = 0
        /// Force-key-unit events actually sent upstream to the encoder (the gate's output).
        public var keyframeRequestsSent = 0
    }

    /// Where the frames come from: an encoder branch's appsink, or another stream relayed
    /// (the main encoding, when the preview's pixels are the same as its own).
    private enum Source {
        case sink(AppSink)
        case relay(StreamSubscription, from: EncodedStream)

        var appSink: AppSink? { if case .sink(let sink) = self { sink } else { nil } }
    }

    private struct State {
        var source: Source?
        var sink: AppSink? { source?.appSink }
        var subscribers: [StreamSubscription] = []
        var caps: Caps?
        var statistics = Statistics()
        var gate: KeyframeGate
        /// Told of every change in `subscribers` (see `demandChanges()`).
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state: Mutex<State>
    private let clock = ContinuousClock()

    /// A subscriber whose appsrc holds this many buffers is behind: it skips to the next keyframe.
    public let maxQueuedBuffers: Int

    /// - Parameters:
    ///   - keyframeCooldown: the least time between two keyframe requests sent to the encoder.
    ///   - maxQueuedBuffers: how far a subscriber may fall behind before it skips ahead.
    public init(keyframeCooldown: Duration = .milliseconds(250), maxQueuedBuffers: Int = 30) {
        state = Mutex(State(gate: KeyframeGate(cooldown: keyframeCooldown)))
        self.maxQueuedBuffers = maxQueuedBuffers
    }

    deinit { state.withLock { $0.sink }?.clearCallbacks() }

    // MARK: Source

    /// Takes the frames of `sink` (the preview branch's appsink), replacing any earlier
    /// sink. Sets it to hand frames over as they come (`sync=false`, `async=false`: it
    /// joins a running pipeline without prerolling). Subscribers wait for the new
    /// source's first keyframe.
    public func attach(to sink: AppSink) throws {
        try sink.set("sync", false)
        try sink.set("async", false)
        try sink.set("enable-last-sample", false)
        sink.onNewSample { [weak self] sink in
            guard let sample = sink.pull(timeout: .zero) else { return }
            self?.distribute(sample)
        }
        let old = state.withLock { s in
            defer { s.source = .sink(sink) }
            for subscriber in s.subscribers { subscriber.waitForKeyframe() }
            return s.source
        }
        Self.release(old, keeping: sink)
    }

    /// Takes its frames from `upstream` from now on (a callback subscription on it),
    /// replacing any earlier source; keyframe wishes go to `upstream`'s encoder. Subscribers
    /// wait for its next keyframe, which is asked for at once.
    public func relay(from upstream: EncodedStream) {
        if case .relay(_, let current)? = state.withLock({ $0.source }), current === upstream { return }
        let subscription = upstream.subscribe(name: "relay") { [weak self] buffer, caps in
            self?.distribute(buffer, caps: caps)
        }
        let old = state.withLock { s in
            defer { s.source = .relay(subscription, from: upstream) }
            for subscriber in s.subscribers { subscriber.waitForKeyframe() }
            return s.source
        }
        Self.release(old, keeping: nil)
    }

    /// The stream this one relays now; nil when an appsink (or nothing) feeds it.
    public var relayedStream: EncodedStream? {
        if case .relay(_, let upstream)? = state.withLock({ $0.source }) { upstream } else { nil }
    }

    /// Ends a relay, if one feeds the stream; an appsink source stays.
    public func stopRelay() {
        let old = state.withLock { s -> Source? in
            guard case .relay? = s.source else { return nil }
            defer { s.source = nil }
            return s.source
        }
        Self.release(old, keeping: nil)
    }

    private static func release(_ source: Source?, keeping sink: AppSink?) {
        switch source {
        case .sink(let old)? where old !== sink: old.clearCallbacks()
        case .relay(let subscription, _)?: subscription.cancel()
        default: break
        }
    }

    /// Lets go of the appsink (its branch is being removed). Subscribers stay and get
    /// frames again from the next `attach`.
    public func detach() {
        let old = state.withLock { s in
            defer { s.source = nil }
            return s.source
        }
        Self.release(old, keeping: nil)
    }

    /// Lets go of `sink` if it is still the source; a newer one attached since stays (a
    /// branch being taken down while its successor already runs).
    public func detach(_ sink: AppSink) {
        state.withLock { s in if s.sink === sink { s.source = nil } }
        sink.clearCallbacks()
    }

    /// Whether an appsink feeds the stream now.
    public var isAttached: Bool { state.withLock { $0.source != nil } }

    /// Ends every subscription (`.streamClosed`), with end of stream into each appsrc so
    /// its pipeline can finish cleanly, and lets go of the appsink.
    public func close() {
        detach()
        let (subscribers, watchers) = state.withLock { s in
            defer {
                s.subscribers.removeAll()
                s.watchers.removeAll()
            }
            return (s.subscribers, Array(s.watchers.values))
        }
        for subscriber in subscribers { subscriber.end(.streamClosed, endOfStream: true) }
        for watcher in watchers {
            watcher.yield()
            watcher.finish()
        }
    }

    // MARK: Subscribers

    /// Feeds `source` from now on, starting at a keyframe (asked for at once). `source`
    /// is made live and time-stamping (`AppSrc.configureLive`). `onEnd` is called once,
    /// with the reason, when the subscription ends — on the thread that ended it (often a
    /// streaming thread): it must only hand off.
    @discardableResult
    public func subscribe(_ source: AppSrc, name: String,
                          onEnd: (@Sendable (StreamSubscription.End) -> Void)? = nil) throws -> StreamSubscription {
        try source.configureLive()
        let subscription = StreamSubscription(name: name, source: source, stream: self, onEnd: onEnd)
        let watchers = state.withLock { s in
            s.subscribers.append(subscription)
            return s.watchers.values
        }
        for watcher in watchers { watcher.yield() }
        requestKeyframe()
        return subscription
    }

    /// Feeds `callback` in process from now on, starting at a keyframe (asked for at once),
    /// with each access unit on the streaming thread: it must only hand off.
    @discardableResult
    public func subscribe(name: String, onEnd: (@Sendable (StreamSubscription.End) -> Void)? = nil,
                          _ callback: @escaping @Sendable (Buffer, Caps?) -> Void) -> StreamSubscription {
        let subscription = StreamSubscription(name: name, stream: self, callback: callback, onEnd: onEnd)
        let watchers = state.withLock { s in
            s.subscribers.append(subscription)
            return s.watchers.values
        }
        for watcher in watchers { watcher.yield() }
        requestKeyframe()
        return subscription
    }

    /// Subscriptions still fed.
    public var subscriptions: [StreamSubscription] { state.withLock { $0.subscribers } }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func remove(_ subscription: StreamSubscription) {
        let watchers = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            let before = s.subscribers.count
            s.subscribers.removeAll { $0 === subscription }
            return s.subscribers.count == before ? [] : Array(s.watchers.values)
        }
        for watcher in watchers { watcher.yield() }
    }

    /// A wake-up whenever a subscriber comes or goes (and one at once), for whoever runs
    /// the encoder only while someone subscribes (`OnDemandPreview`). It carries no count:
    /// wake-ups from different threads may arrive in any order, so the reader looks at
    /// `subscriberCount` itself — the last wake-up always comes after the last change.
    public func demandChanges() -> AsyncStream<Void> {
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            defer { s.nextWatcher += 1 }
            s.watchers[s.nextWatcher] = continuation
            return s.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        continuation.yield()
        return changes
    }

    // MARK: Keyframes

    /// Asks the encoder for a keyframe with SPS/PPS (an upstream force-key-unit event),
    /// rate-limited: a burst of wishes costs one keyframe. Any thread.
    public func requestKeyframe() {
        let now = clock.now
        if let upstream = relayedStream {
            state.withLock { $0.statistics.keyframeWishes += 1 }
            return upstream.requestKeyframe()
        }
        let sink = state.withLock { s -> AppSink? in
            s.statistics.keyframeWishes += 1
            // No encoder yet (an on-demand one starting): its first frame is a keyframe, and a
            // wish spent on the gate now would hold back the next one (a PLAY right after).
            guard let sink = s.sink else { return nil }
            return s.gate.ask(at: now) ? sink : nil
        }
        if let sink { send(to: sink) }
    }

    /// Sends one force-key-unit event upstream from the appsink's pad: through h264parse
    /// to x264enc, which makes its next frame an IDR. Sending an upstream event is safe
    /// from any thread, the streaming thread included: the encoder only notes it.
    private func send(to sink: AppSink) {
        let count = state.withLock { s in
            s.statistics.keyframeRequestsSent += 1
            return UInt32(truncatingIfNeeded: s.statistics.keyframeRequestsSent)
        }
        sink.staticPad("sink")?.push(.forceKeyUnit(allHeaders: true, count: count))
    }

    // MARK: Facts

    /// The caps of the latest frame (width, height, profile ...); nil before the first.
    public var caps: Caps? { state.withLock { $0.caps } }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    // MARK: Streaming thread

    /// One access unit from the appsink, on its streaming thread.
    private func distribute(_ sample: Sample) {
        guard let buffer = sample.buffer else { return }
        distribute(buffer, caps: sample.caps)
    }

    /// One access unit, from the appsink or the stream relayed.
    private func distribute(_ buffer: Buffer, caps: Caps?) {
        let isKeyframe = buffer.isKeyframe
        let now = clock.now
        let (subscribers, resend, sink) = state.withLock { s in
            s.statistics.frames += 1
            s.statistics.bytes += buffer.size
            if isKeyframe { s.statistics.keyframes += 1 }
            if let caps { s.caps = caps }
            return (s.subscribers, s.gate.frame(isKeyframe: isKeyframe, at: now), s.sink)
        }
        var someoneWaits = false
        for subscriber in subscribers {
            switch subscriber.deliver(buffer, caps: caps, isKeyframe: isKeyframe, maxQueued: maxQueuedBuffers) {
            case .delivered: break
            case .waiting: someoneWaits = true
            case .ended: remove(subscriber)
            }
        }
        // A subscriber still waiting (joined, fell behind, not yet started) keeps the
        // wish alive; the gate sends it again once the cooldown has passed.
        let send = resend || (someoneWaits && state.withLock { $0.gate.ask(at: now) })
        if send, let sink { self.send(to: sink) } else if send { relayedStream?.requestKeyframe() }
    }
}
