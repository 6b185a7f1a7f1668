import Synchronization

/// The preview encoder, run only while something takes its frames. An idle recorder then
/// costs the camera and what it records, not an H.264 encoder nobody watches.
///
/// The need is the stream's subscribers: an RTSP media (from the first consumer's DESCRIBE
/// until the last one leaves), a WHEP viewer, the publisher while it connects and
/// publishes. The first one attaches an `EncodedPreviewOutput` to the session's tee by
/// `CaptureSession.attach`, the path every output takes — the other branches lose no
/// frame — and the new encoder's first frame is a keyframe with SPS/PPS, which every
/// subscriber waits for. An RTSP DESCRIBE that finds the encoder idle waits for that first
/// frame, the time of building the branch and encoding one frame (tens of milliseconds).
///
/// When the last subscriber has been gone for `linger`, the branch is detached the same way.
/// The linger spares a consumer that comes straight back (a player retrying, a page
/// reloaded, the publisher reconnecting) the restart and its keyframe wait, and the camera
/// a branch coming and going for every short gap.
///
/// `alwaysOn` keeps the encoder attached whatever the need, as before there was a choice:
/// nobody ever waits for it to start, at its cost all the time.
public actor OnDemandPreview {
    public enum State: String, Sendable {
        /// No preview branch: nothing is encoded.
        case idle
        /// The branch is attached and encoding.
        case running
    }

    /// Counts since start, for `/status` and tests.
    public struct Statistics: Sendable, Equatable {
        public var state = State.idle
        /// Times the encoder branch was attached, and detached for lack of need.
        public var starts = 0
        public var stops = 0
        /// Times it failed while running (it is started again if still needed).
        public var failures = 0
    }

    public nonisolated let stream: EncodedStream
    public nonisolated let linger: Duration
    public nonisolated let alwaysOn: Bool
    /// After a failure to start (or a branch that failed), the least wait before the next try.
    public static let retryDelay: Duration = .seconds(1)

    private nonisolated let published = Mutex(Statistics())
    private let log: @Sendable (String) -> Void
    private let clock = ContinuousClock()

    private var session: CaptureSession?
    private var encoding = PreviewEncoding()
    /// The attached branch's output and its number (its `onDetach` names it).
    private var output: (EncodedPreviewOutput, number: Int)?
    private var outputs = 0
    /// When the encoder ran last with no subscriber; nil while it is needed.
    private var unneededSince: ContinuousClock.Instant?
    private var retryAt: ContinuousClock.Instant?
    private var timer: Task<Void, Never>?
    private var watch: Task<Void, Never>?
    private var stopped = false
    /// `reconcile` runs one pass at a time; a wake-up meanwhile asks for one more.
    private var reconciling = false
    private var again = false
    /// A branch is being attached (by `use` when `alwaysOn`, outside `reconcile`): passes
    /// meanwhile leave it alone; `use` runs one after it.
    private var attaching = false

    /// `log` gets a line when the encoder starts, stops or fails.
    public init(stream: EncodedStream, linger: Duration = .seconds(5), alwaysOn: Bool = false,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.stream = stream
        self.linger = linger
        self.alwaysOn = alwaysOn
        self.log = log
    }

    deinit {
        watch?.cancel()
        timer?.cancel()
    }

    /// Running or idle now (any thread).
    public nonisolated var state: State { published.withLock { $0.state } }

    public nonisolated var statistics: Statistics { published.withLock { $0 } }

    /// Follows the stream's subscribers from now on, until `stop()`.
    public func start() {
        guard watch == nil, !stopped else { return }
        let changes = stream.demandChanges()
        watch = Task { [weak self] in
            for await _ in changes { await self?.reconcile() }
        }
    }

    /// Encodes from `session` when needed (at once when `alwaysOn`: a failure is thrown, as
    /// any output's attach failure is). The session's rotation reaches the branch before its
    /// first frame.
    public func use(_ session: CaptureSession, encoding: PreviewEncoding) async throws {
        self.session = session
        self.encoding = encoding
        output = nil
        unneededSince = nil
        retryAt = nil
        if alwaysOn { try await startEncoder(on: session) }
        await reconcile()
    }

    /// Forgets `session` (it is closing: its branches go with it).
    public func release(_ session: CaptureSession) {
        guard self.session === session else { return }
        self.session = nil
        if output != nil { markIdle(stopped: false) }
        output = nil
        timer?.cancel()
    }

    /// Stops following the need; the branch stays until its session closes.
    public func stop() {
        stopped = true
        watch?.cancel()
        timer?.cancel()
        session = nil
    }

    // MARK: Deciding

    private var needed: Bool { alwaysOn || stream.subscriberCount > 0 }

    private func reconcile() async {
        guard !reconciling else {
            again = true
            return
        }
        reconciling = true
        defer { reconciling = false }
        repeat {
            again = false
            await step()
        } while again
    }

    private func step() async {
        guard !stopped, let session else { return }
        let now = clock.now
        if needed {
            unneededSince = nil
            timer?.cancel()
            guard output == nil, !attaching else { return }
            if let retryAt, now < retryAt { return wake(at: retryAt) }
            do {
                try await startEncoder(on: session)
            } catch {
                retryAt = now + Self.retryDelay
                log("preview encoder: could not start: \(error); trying again")
                wake(at: now + Self.retryDelay)
            }
        } else if let output = output?.0 {
            guard let since = unneededSince else {
                unneededSince = now
                return wake(at: now + linger)
            }
            guard now - since >= linger else { return wake(at: since + linger) }
            self.output = nil
            unneededSince = nil
            markIdle(stopped: true)
            log("preview encoder: idle (no consumer for \(linger))")
            try? await session.detach(output)
        }
    }

    private func startEncoder(on session: CaptureSession) async throws {
        attaching = true
        defer { attaching = false }
        outputs += 1
        let number = outputs
        let output = EncodedPreviewOutput(encoding: encoding, stream: stream) { [weak self] error in
            Task { await self?.branchEnded(number, error: error) }
        }
        try await session.attach(output)
        // Released while attaching: the closing session takes the branch down.
        guard self.session === session, !stopped else { return }
        self.output = (output, number)
        retryAt = nil
        published.withLock { p in
            p.state = .running
            p.starts += 1
        }
        let why = alwaysOn ? "always on" : "\(stream.subscriberCount) consumer\(stream.subscriberCount == 1 ? "" : "s")"
        log("preview encoder: running (\(why))")
    }

    /// An output's branch is gone: by `step`'s detach (already forgotten), or underneath
    /// (it failed): then it is started again, after a pause, if still needed.
    private func branchEnded(_ number: Int, error: (any Error)?) async {
        guard let current = output, current.number == number else { return }
        output = nil
        markIdle(stopped: false)
        published.withLock { $0.failures += 1 }
        log("preview encoder: stopped\(error.map { ": \($0)" } ?? ""); starting it again if needed")
        retryAt = clock.now + Self.retryDelay
        await reconcile()
    }

    private func markIdle(stopped: Bool) {
        published.withLock { p in
            p.state = .idle
            if stopped { p.stops += 1 }
        }
    }

    /// Runs `reconcile` at `deadline` (replacing an earlier wake-up).
    private func wake(at deadline: ContinuousClock.Instant) {
        timer?.cancel()
        timer = Task { [weak self] in
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            await self?.reconcile()
        }
    }
}
