import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import Synchronization
import GLib
import PlumbLocation

/// Pushes the preview to an existing RTSP server with ANNOUNCE/RECORD (mediamtx, a
/// gst-rtsp-server RECORD mount ...), which fans it out further:
/// `appsrc ! h264parse ! rtspclientsink location=URL`, fed by an `EncodedStream`.
///
/// The publishing pipeline is its own, run from its own thread: when the server cannot be
/// reached or goes away (an error on that pipeline's bus, or no RECORD within
/// `connectTimeout`), the pipeline is torn down and built again after a backoff — 0.5 s,
/// doubling to 30 s, starting over after a success — while the capture pipeline and the
/// other consumers carry on untouched.
public final class RTSPPublisher: Sendable {
    /// Where the publisher is.
    public enum State: Sendable, Equatable, CustomStringConvertible {
        /// Not started, or stopped.
        case stopped
        /// Attempt number `attempt` (counting from 1 since start) is under way.
        case connecting(attempt: Int)
        /// The server accepted RECORD: frames are going out.
        case connected
        /// The last attempt failed (`failures` in a row, the latest because of `reason`);
        /// the next one starts after `retryIn`.
        case waiting(retryIn: Duration, failures: Int, reason: String)

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting(let attempt): return "connecting (attempt \(attempt))"
            case .connected: return "connected"
            case let .waiting(delay, failures, reason):
                return "waiting \(delay) before the next attempt (\(failures) failed in a row; last: \(reason))"
            }
        }
    }

    /// RTP over the RTSP connection, or over UDP.
    public enum Transport: String, Sendable { case tcp, udp }

    public struct Configuration: Sendable, Equatable {
        /// rtsp://[user:password@]HOST[:PORT]/PATH
        public var url: String
        public var transport: Transport
        public var backoff: Backoff
        /// The most an attempt may take from start to RECORD accepted.
        public var connectTimeout: Duration

        public init(url: String, transport: Transport = .tcp, backoff: Backoff = Backoff(),
                    connectTimeout: Duration = .seconds(10)) {
            self.url = url
            self.transport = transport
            self.backoff = backoff
            self.connectTimeout = connectTimeout
        }
    }

    public let configuration: Configuration
    public let stream: EncodedStream
    private let loop: MainContextThread
    private let inner = Mutex(Inner())
    /// Whoever watches the state; separate from `inner` so yielding never holds that lock.
    private let observers = Mutex<[UInt64: AsyncStream<State>.Continuation]>([:])
    private let nextObserver = Atomic<UInt64>(0)

    /// Everything below is only changed on `loop`'s thread.
    private struct Inner {
        var running = false
        var state = State.stopped
        var attempts = 0
        var failures = 0
        var connections = 0
        /// Bumped per attempt: bus messages from a torn-down attempt are ignored.
        var generation = 0
        var pipeline: Pipeline?
        var watch: MessageWatch?
        var subscription: StreamSubscription?
        var timer: ContextTimer?
        var framesBefore = 0
        /// This attempt's RECORD request has gone out.
        var recordSent = false
    }

    public init(stream: EncodedStream, configuration: Configuration) throws {
        let url = configuration.url
        guard let parsed = URL(string: url), ["rtsp", "rtsps"].contains(parsed.scheme?.lowercased() ?? ""),
              let host = parsed.host, !host.isEmpty, !parsed.path.isEmpty, parsed.path != "/" else {
            throw CaptureError.invalidArgument(
                "publish url \"\(url)\" is not an RTSP URL with a path: use rtsp://HOST[:PORT]/PATH")
        }
        guard configuration.connectTimeout > .zero else {
            throw CaptureError.invalidArgument("publish connect timeout must be more than 0 s")
        }
        self.configuration = configuration
        self.stream = stream
        loop = MainContextThread(name: "plumb.rtsp-publisher")
    }

    deinit {
        // No `self` to reach from the loop any more: take the attempt down from here.
        let (pipeline, watch, subscription, timer) = inner.withLock { i in
            (i.pipeline, i.watch, i.subscription, i.timer)
        }
        timer?.cancel()
        subscription?.cancel()
        watch?.cancel()
        loop.stop()
        try? pipeline?.setState(.null)
        observers.withLock { o in
            for continuation in o.values { continuation.finish() }
            o.removeAll()
        }
    }

    // MARK: Control

    /// Starts publishing (and keeps at it until `stop`). Returns at once; see `state`.
    public func start() {
        loop.context.invoke { [weak self] in
            guard let self, !self.inner.withLock({ $0.running }) else { return }
            self.inner.withLock { i in
                i.running = true
                i.failures = 0
            }
            self.connect()
        }
    }

    /// Stops publishing: the pipeline is torn down (RTSP TEARDOWN when connected), no more
    /// attempts are made. Returns once it is done. Idempotent.
    public func stop() {
        let done = DispatchSemaphore(value: 0)
        loop.context.invoke { [weak self] in
            defer { done.signal() }
            guard let self else { return }
            self.inner.withLock { $0.running = false }
            self.tearDown()
            self.set(.stopped)
        }
        if !loop.isCurrent { done.wait() }
    }

    // MARK: Facts

    public var state: State { inner.withLock { $0.state } }

    /// Attempts since the publisher was made.
    public var attempts: Int { inner.withLock { $0.attempts } }

    /// Times the server accepted RECORD.
    public var connections: Int { inner.withLock { $0.connections } }

    /// Frames handed to the publishing pipeline since start, over every connection.
    public var framesSent: Int {
        inner.withLock { $0.framesBefore + ($0.subscription?.statistics.delivered ?? 0) }
    }

    /// The current state, then every change, until the publisher goes away.
    public func stateUpdates() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .unbounded)
        let id = nextObserver.add(1, ordering: .relaxed).newValue
        observers.withLock { o in
            o[id] = continuation
            continuation.yield(state)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: On the publisher's thread

    private func set(_ state: State) {
        let changed = inner.withLock { i in
            defer { i.state = state }
            return i.state != state
        }
        guard changed else { return }
        observers.withLock { o in for continuation in o.values { continuation.yield(state) } }
    }

    private func connect() {
        let (running, attempt, generation) = inner.withLock { i in
            i.attempts += 1
            i.generation += 1
            return (i.running, i.attempts, i.generation)
        }
        guard running else { return }
        set(.connecting(attempt: attempt))
        do {
            let pipeline = try Pipeline.parse(
                "appsrc name=src ! h264parse ! rtspclientsink name=sink latency=0")
            let sink = pipeline.element(named: "sink")!
            try sink.set("location", configuration.url)
            try sink.set("protocols", parsing: configuration.transport.rawValue)
            // A server that stops answering (rather than closing the connection) fails a
            // request within the connect timeout instead of rtspclientsink's 20 s, so
            // tearing the attempt down never waits long either.
            let micros = configuration.connectTimeout.components.seconds * 1_000_000
                + configuration.connectTimeout.components.attoseconds / 1_000_000_000_000
            try sink.set("tcp-timeout", Int(micros))
            let watch = pipeline.watchMessages(on: loop.context) { [weak self] message in
                self?.handle(message, generation: generation)
            }
            inner.withLock { i in
                i.pipeline = pipeline
                i.watch = watch
            }
            let source = AppSrc(pipeline.element(named: "src")!)!
            let subscription = try stream.subscribe(source, name: "publish-\(attempt)") { [weak self] end in
                // On a streaming thread: hand the news to the publisher's own thread.
                guard case .refused(let flow) = end, let self else { return }
                self.loop.context.invoke { [weak self] in
                    self?.fail("the publishing pipeline refused a frame (\(flow))", generation: generation)
                }
            }
            inner.withLock { $0.subscription = subscription }
            if pipeline.requestState(.playing) == .failed {
                fail("the publishing pipeline could not start", generation: generation)
                return
            }
            let timeout = configuration.connectTimeout
            let timer = loop.context.schedule(after: timeout) { [weak self] in
                self?.fail("the server did not accept RECORD within \(timeout)", generation: generation)
            }
            inner.withLock { $0.timer = timer }
        } catch {
            fail("\(error)", generation: generation)
        }
    }

    /// Reads the publishing pipeline's bus, on the publisher's thread.
    ///
    /// Connected: rtspclientsink announces "Starting recording" just before it sends RECORD,
    /// and once the server has answered it sets its own streaming elements to PLAYING (in
    /// GStreamer 1.22 that is the only sign; later versions also report the RECORD request
    /// complete). Gone: an error, or rtspclientsink's own resource warning when the server
    /// closes the connection (it reports that as a warning and stops sending).
    private func handle(_ message: Message, generation: Int) {
        guard inner.withLock({ $0.generation == generation && $0.running }) else { return }
        if let progress = message.progress {
            if progress.code == "record", progress.text.hasPrefix("Starting recording") {
                inner.withLock { $0.recordSent = true }
            } else if progress.kind == .complete, progress.code == "request", progress.text.contains("RECORD") {
                didConnect()
            }
            return
        }
        switch message.typed {
        case let .stateChanged(source, _, new, _, _):
            if new == .playing, source.contains("/GstRTSPClientSink:sink/"), inner.withLock({ $0.recordSent }) {
                didConnect()
            }
        case .error(let error):
            fail(error.message, generation: generation)
        case .warning(let warning):
            if warning.resource != nil, warning.source?.hasSuffix("/GstRTSPClientSink:sink") == true {
                fail(warning.message, generation: generation)
            }
        case .eos:
            fail("the publishing pipeline ended", generation: generation)
        default:
            break
        }
    }

    private func didConnect() {
        let first = inner.withLock { i in
            guard i.state != .connected else { return false }
            i.failures = 0
            i.connections += 1
            i.timer?.cancel()
            i.timer = nil
            return true
        }
        if first { set(.connected) }
    }

    /// The attempt `generation` failed: tear it down and schedule the next one.
    private func fail(_ reason: String, generation: Int) {
        guard inner.withLock({ $0.generation == generation && $0.running }) else { return }
        tearDown()
        let (failures, delay) = inner.withLock { i in
            i.failures += 1
            return (i.failures, configuration.backoff.delay(afterFailures: i.failures))
        }
        set(.waiting(retryIn: delay, failures: failures, reason: reason))
        let timer = loop.context.schedule(after: delay) { [weak self] in self?.connect() }
        inner.withLock { $0.timer = timer }
    }

    private func tearDown() {
        let (pipeline, watch, subscription, timer) = inner.withLock { i in
            defer {
                i.generation += 1
                i.framesBefore += i.subscription?.statistics.delivered ?? 0
                i.pipeline = nil
                i.watch = nil
                i.subscription = nil
                i.timer = nil
                i.recordSent = false
            }
            return (i.pipeline, i.watch, i.subscription, i.timer)
        }
        timer?.cancel()
        subscription?.cancel()
        watch?.cancel()
        try? pipeline?.setState(.null)
    }
}
