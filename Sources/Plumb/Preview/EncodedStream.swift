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
/// Timestamps: each frame carries its running time in the capture pipeline (whichever
/// encoder made it), reaches a subscriber's appsrc with it, and
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
        /// Handovers completed (a feed took over from another).
        public var handovers = 0
        /// Keyframes of a feed taking over that came before the old feed's latest frame (it
        /// was asked for one at a later running time).
        public var handoverKeyframesTooEarly = 0
    }

    /// Where the frames come from: an encoder branch (its appsink, or a recording's tapped
    /// pad), or another stream relayed (the main encoding, when the preview's pixels are the
    /// same as its own).
    private enum Source {
        case feed(EncodedStreamFeed)
        case relay(StreamSubscription, from: EncodedStream)

        var feed: EncodedStreamFeed? { if case .feed(let feed) = self { feed } else { nil } }
    }

    /// A feed attached while another still feeds the stream, taking over without a frame lost
    /// or doubled: its frames wait from its first keyframe after the last frame delivered (the
    /// boundary); the old feed's frames are delivered up to the boundary, and at the first one
    /// past it (or when the old one is detached) the waiting frames follow, and the new feed
    /// is the source. A recording's next segment takes over this way (its branch gets the
    /// frames from the cut on, the old one those before it), and so do the main encoding's own
    /// branch and a recording's encoder, running side by side for a moment.
    ///
    /// A new feed whose encoder lags behind the old one (a busy machine: a fresh encoder, two
    /// encoders on two cores) would make every keyframe too early, for the old feed's frames
    /// would always be further on. Once one came too early, the old feed's frames are held
    /// instead of delivered (at most `maxQueuedBuffers`, the oldest going out beyond that), so
    /// the new feed's next keyframe, asked for at once, comes after the last frame delivered:
    /// the held frames before it are delivered, those from it on are the new feed's.
    private struct Handover {
        let feed: EncodedStreamFeed
        /// The running time of its keyframe that starts its frames.
        var boundary: ClockTime?
        var waiting: [(Buffer, Caps?)] = []
        /// Keyframes it made too early (before the old feed's latest frame).
        var early = 0
        /// The old feed's frames held back since a keyframe came too early (`early` > 0).
        var held: [(Buffer, Caps?)] = []
    }

    /// What a frame from a feed comes to.
    private enum Route {
        case drop
        case deliver([(Buffer, Caps?)], release: EncodedStreamFeed?)
        /// The new feed's keyframe came before the old feed's latest frame: ask it for one at
        /// this running time.
        case ask(EncodedStreamFeed, at: ClockTime)
    }

    private struct State {
        var source: Source?
        var feed: EncodedStreamFeed? { source?.feed }
        var handover: Handover? {
            didSet {
                guard handover == nil, !handoverWaiters.isEmpty else { return }
                for waiter in handoverWaiters { waiter.succeed(()) }
                handoverWaiters = []
            }
        }
        var handoverWaiters: [OneShot<Void>] = []
        /// The running time of the latest frame delivered from the current feed.
        var latest: ClockTime?
        var subscribers: [StreamSubscription] = []
        var caps: Caps?
        var statistics = Statistics()
        var gate: KeyframeGate
        /// Told of every change in `subscribers` (see `demandChanges()`).
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state: Mutex<State>
    /// Held while frames go to the subscribers: two feeds deliver from two threads during a
    /// handover, and the frames must reach each subscriber in order.
    private let delivery = Mutex(())
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

    deinit {
        let feeds = state.withLock { [$0.feed, $0.handover?.feed] }
        for feed in feeds { feed?.stop() }
    }

    // MARK: Source

    /// Takes the frames of `sink` (an encoder branch's appsink). Sets it to hand frames over
    /// as they come (`sync=false`, `async=false`: it joins a running pipeline without
    /// prerolling). While another branch feeds the stream, the new one takes over from its
    /// first keyframe after that one's latest frame (a handover); otherwise subscribers wait
    /// for its first keyframe.
    @discardableResult
    public func attach(to sink: AppSink) throws -> EncodedStreamFeed {
        if let current = state.withLock({ $0.feed }), current.sink === sink { return current }
        let feed = try EncodedStreamFeed(sink: sink)
        try attach(feed)
        return feed
    }

    /// Takes the frames that pass `pad` (a sink pad between an encoder and its muxer, whose
    /// frames are byte-stream access units), as `attach(to:)` does an appsink's.
    @discardableResult
    public func attach(tap pad: Pad) throws -> EncodedStreamFeed {
        let feed = EncodedStreamFeed(tap: pad)
        try attach(feed)
        return feed
    }

    private func attach(_ feed: EncodedStreamFeed) throws {
        let released = state.withLock { s -> [EncodedStreamFeed] in
            if s.feed != nil {
                // Any handover not finished yet gives way to this one.
                defer { s.handover = Handover(feed: feed) }
                return s.handover.map { [$0.feed] } ?? []
            }
            let old = s.source
            s.source = .feed(feed)
            s.latest = nil
            for subscriber in s.subscribers { subscriber.waitForKeyframe() }
            if case .relay(let subscription, _)? = old { subscription.cancel() }
            return []
        }
        for old in released { old.stop() }
        // Known to the stream before its first frame comes (a new encoder's first keyframe).
        do {
            // A branch that drained hands over at once, not when it is taken down.
            try feed.start({ [weak self] feed, buffer, caps in self?.distribute(buffer, caps: caps, from: feed) },
                           ended: { [weak self] feed in self?.detach(feed) })
        } catch {
            detach(feed)
            throw error
        }
    }

    /// Takes its frames from `upstream` from now on (a callback subscription on it),
    /// replacing any earlier source; keyframe wishes go to `upstream`'s encoder. Subscribers
    /// wait for its next keyframe, which is asked for at once.
    public func relay(from upstream: EncodedStream) {
        if case .relay(_, let current)? = state.withLock({ $0.source }), current === upstream { return }
        let subscription = upstream.subscribe(name: "relay") { [weak self] buffer, caps in
            self?.distribute(buffer, caps: caps, from: nil)
        }
        let old = state.withLock { s in
            defer {
                s.source = .relay(subscription, from: upstream)
                s.handover = nil
                s.latest = nil
            }
            for subscriber in s.subscribers { subscriber.waitForKeyframe() }
            return (s.source, s.handover?.feed)
        }
        Self.release(old.0)
        old.1?.stop()
    }

    /// The stream this one relays now; nil when an appsink (or nothing) feeds it.
    public var relayedStream: EncodedStream? {
        if case .relay(_, let upstream)? = state.withLock({ $0.source }) { upstream } else { nil }
    }

    /// Ends a relay, if one feeds the stream; a feed stays.
    public func stopRelay() {
        let old = state.withLock { s -> Source? in
            guard case .relay? = s.source else { return nil }
            defer { s.source = nil }
            return s.source
        }
        Self.release(old)
    }

    private static func release(_ source: Source?) {
        switch source {
        case .feed(let feed)?: feed.stop()
        case .relay(let subscription, _)?: subscription.cancel()
        case nil: break
        }
    }

    /// Lets go of every feed and relay (their branches are being removed). Subscribers stay
    /// and get frames again from the next `attach`.
    public func detach() {
        let old = state.withLock { s in
            defer {
                s.source = nil
                s.handover = nil
            }
            return (s.source, s.handover?.feed)
        }
        Self.release(old.0)
        old.1?.stop()
    }

    /// Lets go of `sink`'s feed, if it still feeds the stream; a newer one attached since stays
    /// (a branch being taken down while its successor already runs).
    public func detach(_ sink: AppSink) {
        let feed = state.withLock { s in [s.feed, s.handover?.feed].compactMap { $0 }.first { $0.sink === sink } }
        if let feed { detach(feed) } else { sink.clearCallbacks() }
    }

    /// Lets go of `feed` (its branch is being removed). A handover under way completes: the
    /// new feed's waiting frames follow the old one's last, and it is the source from then on.
    public func detach(_ feed: EncodedStreamFeed) {
        feed.stop()
        delivery.withLock { _ in
            let (frames, waitForKeyframe) = state.withLock { s -> ([(Buffer, Caps?)], Bool) in
                if let handover = s.handover, handover.feed === feed {
                    s.handover = nil
                    return ([], false)
                }
                guard s.feed === feed else { return ([], false) }
                guard let handover = s.handover else {
                    s.source = nil
                    return ([], false)
                }
                // The old feed ends: its held frames go out, and the new one goes on from its
                // boundary, or from its first keyframe when none has come yet.
                s.latest = nil
                return (handover.held + handover.waiting, Self.complete(handover, in: &s))
            }
            for (buffer, caps) in frames { deliver(buffer, caps: caps) }
            if waitForKeyframe { for subscriber in subscriptions { subscriber.waitForKeyframe() } }
        }
    }

    /// Whether `sink`'s feed feeds the stream now, or is taking over; false once a handover
    /// or a detach has let go of it.
    public func isFed(by sink: AppSink) -> Bool {
        state.withLock { s in s.feed?.sink === sink || s.handover?.feed.sink === sink }
    }

    /// Whether a feed or a relay feeds the stream now.
    public var isAttached: Bool { state.withLock { $0.source != nil } }

    /// Whether a new feed is taking over from the current one now.
    public var isHandingOver: Bool { state.withLock { $0.handover != nil } }

    /// Waits until no new feed is taking over (at most `limit`): true when none is.
    public func handoverEnded(within limit: Duration) async -> Bool {
        let waiter = OneShot<Void>()
        let under = state.withLock { s in
            guard s.handover != nil else { return false }
            s.handoverWaiters.append(waiter)
            return true
        }
        guard under else { return true }
        return (try? await waiter.value(timeout: limit, what: "the encoded stream's handover")) != nil
    }

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
        let feed = state.withLock { s -> EncodedStreamFeed? in
            s.statistics.keyframeWishes += 1
            // No encoder yet (an on-demand one starting): its first frame is a keyframe, and a
            // wish spent on the gate now would hold back the next one (a PLAY right after).
            // During a handover the feed taking over gets it.
            guard let feed = s.handover?.feed ?? s.feed else { return nil }
            return s.gate.ask(at: now) ? feed : nil
        }
        if let feed { send(to: feed) }
    }

    /// Sends one force-key-unit event upstream from the feed's pad: through h264parse
    /// to x264enc, which makes its next frame (or the first at `runningTime`) an IDR. Sending
    /// an upstream event is safe from any thread, the streaming thread included: the encoder
    /// only notes it.
    private func send(to feed: EncodedStreamFeed, at runningTime: ClockTime? = nil) {
        let count = state.withLock { s in
            s.statistics.keyframeRequestsSent += 1
            return UInt32(truncatingIfNeeded: s.statistics.keyframeRequestsSent)
        }
        if let runningTime {
            feed.pad.push(.forceKeyUnitAt(runningTime: runningTime, allHeaders: true, count: count))
        } else {
            feed.pad.push(.forceKeyUnit(allHeaders: true, count: count))
        }
    }

    // MARK: Facts

    /// The caps of the latest frame (width, height, profile ...); nil before the first.
    public var caps: Caps? { state.withLock { $0.caps } }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    // MARK: Streaming thread

    /// One access unit from a feed (nil: the stream relayed), on its streaming thread.
    private func distribute(_ buffer: Buffer, caps: Caps?, from feed: EncodedStreamFeed?) {
        delivery.withLock { _ in
            switch route(buffer, caps: caps, from: feed) {
            case .drop: break
            case .deliver(let frames, let release):
                release?.stop()
                for (buffer, caps) in frames { deliver(buffer, caps: caps) }
            case .ask(let feed, let time): send(to: feed, at: time)
            }
        }
    }

    /// Where a frame goes: to the subscribers from the current source; held, from a feed
    /// taking over (`Handover`); nowhere, from a feed or relay let go of.
    private func route(_ buffer: Buffer, caps: Caps?, from feed: EncodedStreamFeed?) -> Route {
        state.withLock { s -> Route in
            guard let feed else {
                if case .relay? = s.source { return .deliver([(buffer, caps)], release: nil) }
                return .drop
            }
            let time = buffer.pts
            if let current = s.feed, current === feed {
                if var handover = s.handover {
                    if let boundary = handover.boundary, let time, time >= boundary {
                        // The old feed has reached the new one's first frame: the new one goes on.
                        Self.complete(handover, in: &s)
                        return .deliver(handover.waiting, release: current)
                    }
                    if handover.boundary == nil, handover.early > 0 {
                        // Held until the new feed's next keyframe says where the old one ends.
                        handover.held.append((buffer, caps))
                        let out = handover.held.count > maxQueuedBuffers ? [handover.held.removeFirst()] : []
                        if let time = out.first?.0.pts { s.latest = time }
                        s.handover = handover
                        return out.isEmpty ? .drop : .deliver(out, release: nil)
                    }
                }
                if let time { s.latest = time }
                return .deliver([(buffer, caps)], release: nil)
            }
            guard var handover = s.handover, handover.feed === feed else { return .drop }
            var before: [(Buffer, Caps?)] = []
            if handover.boundary == nil {
                guard buffer.isKeyframe else { return .drop }
                if let latest = s.latest, let time, time <= latest {
                    // Made before the old feed's latest frame delivered: it cannot follow that
                    // frame. The old feed's frames are held from now on, so the next one,
                    // asked for now, can (unless it lags by more than the held frames).
                    handover.early += 1
                    s.statistics.handoverKeyframesTooEarly += 1
                    s.handover = handover
                    return .ask(feed, at: latest + ClockTime(min(handover.early, 10)) * 100_000_000)
                }
                let boundary = time ?? s.latest ?? 0
                handover.boundary = boundary
                // The held frames before the boundary go out; from it on the new feed's follow.
                let held = handover.held
                handover.held = []
                before = held.filter { ($0.0.pts ?? 0) < boundary }
                if let last = before.last?.0.pts { s.latest = last }
                if before.count < held.count, let old = s.feed {
                    // The old feed is already past the boundary: the new one goes on now.
                    handover.waiting.append((buffer, caps))
                    Self.complete(handover, in: &s)
                    return .deliver(before + handover.waiting, release: old)
                }
            }
            handover.waiting.append((buffer, caps))
            guard handover.waiting.count > maxQueuedBuffers, let old = s.feed else {
                s.handover = handover
                return before.isEmpty ? .drop : .deliver(before, release: nil)
            }
            // The old feed has gone quiet without being detached: the new one goes on.
            Self.complete(handover, in: &s)
            return .deliver(before + handover.waiting, release: old)
        }
    }

    /// The new feed is the source from its waiting frames on. True when it has no boundary (no
    /// keyframe from it yet: only when the old feed was detached first): the subscribers must
    /// then wait for its first keyframe, once what is left of the old feed has gone out.
    @discardableResult
    private static func complete(_ handover: Handover, in s: inout State) -> Bool {
        s.handover = nil
        s.statistics.handovers += 1
        s.source = .feed(handover.feed)
        s.latest = handover.waiting.last?.0.pts ?? s.latest
        return handover.boundary == nil
    }

    /// One access unit to the subscribers, in order (`delivery` held).
    private func deliver(_ buffer: Buffer, caps: Caps?) {
        let isKeyframe = buffer.isKeyframe
        let now = clock.now
        let (subscribers, resend, feed) = state.withLock { s in
            s.statistics.frames += 1
            s.statistics.bytes += buffer.size
            if isKeyframe { s.statistics.keyframes += 1 }
            if let caps { s.caps = caps }
            return (s.subscribers, s.gate.frame(isKeyframe: isKeyframe, at: now), s.handover?.feed ?? s.feed)
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
        if send, let feed { self.send(to: feed) } else if send { relayedStream?.requestKeyframe() }
    }
}
