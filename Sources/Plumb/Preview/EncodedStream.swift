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
/// Timestamps: each frame reaches a subscriber without PTS/DTS, and the subscriber's
/// appsrc (`configureLive`: live, `do-timestamp`) stamps it with its own running time.
/// The preview encoder makes no B-frames (zerolatency), so decode order is display order.
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

    private struct State {
        var sink: AppSink?
        var subscribers: [StreamSubscription] = []
        var caps: Caps?
        var statistics = Statistics()
        var gate: KeyframeGate
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
            defer { s.sink = sink }
            for subscriber in s.subscribers { subscriber.waitForKeyframe() }
            return s.sink
        }
        if let old, old !== sink { old.clearCallbacks() }
    }

    /// Lets go of the appsink (its branch is being removed). Subscribers stay and get
    /// frames again from the next `attach`.
    public func detach() {
        let old = state.withLock { s in
            defer { s.sink = nil }
            return s.sink
        }
        old?.clearCallbacks()
    }

    /// Ends every subscription (`.streamClosed`), with end of stream into each appsrc so
    /// its pipeline can finish cleanly, and lets go of the appsink.
    public func close() {
        detach()
        let subscribers = state.withLock { s in
            defer { s.subscribers.removeAll() }
            return s.subscribers
        }
        for subscriber in subscribers { subscriber.end(.streamClosed, endOfStream: true) }
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
        state.withLock { $0.subscribers.append(subscription) }
        requestKeyframe()
        return subscription
    }

    /// Subscriptions still fed.
    public var subscriptions: [StreamSubscription] { state.withLock { $0.subscribers } }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    func remove(_ subscription: StreamSubscription) {
        state.withLock { $0.subscribers.removeAll { $0 === subscription } }
    }

    // MARK: Keyframes

    /// Asks the encoder for a keyframe with SPS/PPS (an upstream force-key-unit event),
    /// rate-limited: a burst of wishes costs one keyframe. Any thread.
    public func requestKeyframe() {
        let now = clock.now
        let sink = state.withLock { s -> AppSink? in
            s.statistics.keyframeWishes += 1
            return s.gate.ask(at: now) ? s.sink : nil
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
        let caps = sample.caps
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
        if send, let sink { self.send(to: sink) }
    }
}
