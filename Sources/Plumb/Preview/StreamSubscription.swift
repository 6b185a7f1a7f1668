import GStreamer
import Synchronization

/// One consumer fed by an `EncodedStream`: an appsrc in a pipeline of its own, or an
/// in-process callback (the pre-record ring, another stream relaying this one).
public final class StreamSubscription: Sendable, CustomStringConvertible {
    /// Why a subscription ended.
    public enum End: Sendable, Equatable, CustomStringConvertible {
        /// `cancel()` was called.
        case cancelled
        /// The appsrc refused a frame after it had taken some: its pipeline went away
        /// (flushing) or ended (eos).
        case refused(FlowReturn)
        /// The stream was closed.
        case streamClosed

        public var description: String {
            switch self {
            case .cancelled: return "cancelled"
            case .refused(let flow): return "the consumer refused a frame (\(flow))"
            case .streamClosed: return "the stream was closed"
            }
        }
    }

    /// Counts for this subscriber.
    public struct Statistics: Sendable, Equatable {
        /// Frames pushed into the appsrc.
        public var delivered = 0
        /// Frames not pushed: before the first keyframe, or while skipping ahead.
        public var skipped = 0
        /// Times it fell behind (queue full) and skipped to the next keyframe.
        public var resyncs = 0
    }

    public let name: String
    /// nil for a callback subscriber.
    let source: AppSrc?
    /// Takes each access unit on the stream's streaming thread (must only hand off); nil
    /// for an appsrc subscriber.
    private let callback: (@Sendable (Buffer, Caps?) -> Void)?
    private let onEnd: (@Sendable (End) -> Void)?

    private struct State {
        var awaitingKeyframe = true
        var statistics = Statistics()
        var end: End?
    }

    private let state = Mutex(State())
    private let owner: Mutex<WeakStream>

    private struct WeakStream { weak var stream: EncodedStream? }

    /// A callback subscriber: no appsrc, no queue, frames as they leave the encoder.
    init(name: String, stream: EncodedStream, callback: @escaping @Sendable (Buffer, Caps?) -> Void,
         onEnd: (@Sendable (End) -> Void)?) {
        self.name = name
        source = nil
        self.callback = callback
        self.onEnd = onEnd
        owner = Mutex(WeakStream(stream: stream))
    }

    init(name: String, source: AppSrc, stream: EncodedStream, onEnd: (@Sendable (End) -> Void)?) {
        self.name = name
        self.source = source
        callback = nil
        self.onEnd = onEnd
        owner = Mutex(WeakStream(stream: stream))
        // Frames arrive stamped with their capture time; as each leaves the appsrc (its
        // pipeline playing, its base time set) it is moved onto that pipeline's timeline.
        // The probe holds only the retimer, so it keeps no element alive; it goes with the pad.
        let retimer = Mutex(CaptureRetimer())
        source.staticPad("src")?.addProbe(.buffer) { pad, info in
            guard let capture = info.bufferPTS, let now = pad.elementRunningTime else { return .ok }
            let time = retimer.withLock { $0.runningTime(capture: capture, now: now) }
            info.retimeBuffer(pts: time, dts: time)
            return .ok
        }
    }

    public var description: String { "subscriber \(name)" }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Why it ended; nil while it is fed.
    public var end: End? { state.withLock { $0.end } }

    public var isActive: Bool { end == nil }

    /// Stops feeding the appsrc (and lets go of it). Idempotent; any thread.
    public func cancel() { end(.cancelled, endOfStream: false) }

    // MARK: For the stream

    enum Outcome { case delivered, waiting, ended }

    /// The next frame should be a keyframe (a new source was attached).
    func waitForKeyframe() { state.withLock { $0.awaitingKeyframe = true } }

    /// Pushes one access unit, or skips it; on the appsink's streaming thread.
    func deliver(_ buffer: Buffer, caps: Caps?, isKeyframe: Bool, maxQueued: Int) -> Outcome {
        let go: Bool? = state.withLock { s in
            if s.end != nil { return nil }
            if s.awaitingKeyframe && !isKeyframe {
                s.statistics.skipped += 1
                return false
            }
            return true
        }
        guard let go else { return .ended }
        guard go else { return .waiting }
        guard let source else {
            callback?(buffer, caps)
            state.withLock { s in
                s.awaitingKeyframe = false
                s.statistics.delivered += 1
            }
            return .delivered
        }
        if source.queuedBuffers >= maxQueued {
            // Its pipeline is not keeping up: drop from here to the next keyframe rather
            // than queue without bound (and decode garbage after a hole).
            state.withLock { s in
                s.awaitingKeyframe = true
                s.statistics.resyncs += 1
                s.statistics.skipped += 1
            }
            return .waiting
        }
        do {
            // The capture timestamp travels with the frame (DTS = PTS: no B-frames) for the
            // probe at the appsrc's src pad to map; do-timestamp never overrides it.
            try source.push(Sample(buffer: buffer.retimed(pts: buffer.pts, dts: buffer.pts), caps: caps))
            state.withLock { s in
                s.awaitingKeyframe = false
                s.statistics.delivered += 1
            }
            return .delivered
        } catch {
            let flow = error.flowReturn ?? .error
            let started = state.withLock { s in
                s.awaitingKeyframe = true
                s.statistics.skipped += 1
                return s.statistics.delivered > 0
            }
            // An appsrc whose pipeline has not started yet (an RTSP media being prepared)
            // is flushing too: keep it, and start it on a later keyframe.
            if flow == .flushing && !started { return .waiting }
            end(.refused(flow), endOfStream: false)
            return .ended
        }
    }

    /// Ends the subscription once: records why, leaves the stream, tells the owner.
    func end(_ reason: End, endOfStream: Bool) {
        let first = state.withLock { s in
            guard s.end == nil else { return false }
            s.end = reason
            return true
        }
        guard first else { return }
        if endOfStream { try? source?.endOfStream() }
        owner.withLock { $0.stream }?.remove(self)
        onEnd?(reason)
    }
}
