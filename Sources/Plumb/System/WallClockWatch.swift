import Dispatch
import FoundationEssentials
import Glibc
import PlumbLocation
import Synchronization

/// Watches the wall clock against the monotonic one: a board without a real-time clock
/// boots hours or years off and NTP later sets it in one step. The kernel tells of every set
/// (`WallClockSetEvents`, a timerfd); the step is then how far the wall clock moved beyond
/// the monotonic one since the last reading, and one beyond `threshold` is a jump, handed to
/// `onJump`. (The two clocks run at the same rate, NTP's slewing included, so only a set
/// changes their difference.) It also follows the kernel's word on synchronisation
/// (`WallClock.isSynchronized`), handing each change to `onSynchronization`. Nothing that
/// times the engine (segment lengths, the stall watchdog, fragments) uses the wall clock,
/// so a jump only moves the times in names and metadata.
public final class WallClockWatch: Sendable {
    /// One step of the wall clock.
    public struct Jump: Sendable, Equatable, Encodable {
        /// How far it stepped, beyond the time that passed: + forward, - back.
        public var seconds: Double
        /// The wall time just before and just after, ISO 8601 in UTC.
        public var from: String
        public var to: String

        /// "+3h0m2s", "-59m58s", "+4s".
        public var signed: String { Self.render(seconds) }

        static func render(_ seconds: Double) -> String {
            let whole = Int(abs(seconds).rounded())
            let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
            let sign = seconds < 0 ? "-" : "+"
            if h > 0 { return "\(sign)\(h)h\(m)m\(s)s" }
            if m > 0 { return "\(sign)\(m)m\(s)s" }
            return "\(sign)\(s)s"
        }
    }

    /// `GET /status`'s `clock`.
    public struct Status: Sendable, Equatable, Encodable {
        /// The kernel's word (adjtimex): false while it marks the clock unsynchronised, nil when it does not say.
        public var synchronized: Bool?
        /// Jumps seen since start.
        public var jumps: Int
        public var lastJump: Jump?

        enum CodingKeys: String, CodingKey { case synchronized, jumps, lastJump = "last_jump" }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(synchronized, forKey: .synchronized)  // null, not missing, when unknown
            try c.encode(jumps, forKey: .jumps)
            try c.encode(lastJump, forKey: .lastJump)
        }
    }

    /// How often the kernel's word on synchronisation is read: adjtimex has no event for
    /// it (the clock's sets have one, `WallClockSetEvents`), so it alone is checked by time.
    public let synchronizationInterval: Duration
    public let threshold: Duration
    private let synchronized: @Sendable () -> Bool?
    private let onJump: @Sendable (Jump) -> Void
    private let onSynchronization: @Sendable (Bool?) -> Void
    private let state: Mutex<(status: Status, last: (wall: Date, monotonic: ContinuousClock.Instant)?)>
    private let queue = DispatchQueue(label: "plumb.wall-clock-watch")
    private let running = Mutex<Running?>(nil)

    /// What listens while started: the clock's sets, and the timer of the synchronisation check.
    /// `@unchecked Sendable`: dispatch sources may be cancelled from any thread.
    private final class Running: @unchecked Sendable {
        let sets: WallClockSetEvents
        let synchronization: any DispatchSourceTimer

        init(sets: WallClockSetEvents, synchronization: any DispatchSourceTimer) {
            self.sets = sets
            self.synchronization = synchronization
        }

        func cancel() {
            sets.cancel()
            synchronization.cancel()
        }
    }

    public init(synchronizationInterval: Duration = .seconds(1), threshold: Duration = .seconds(2),
                synchronized: @escaping @Sendable () -> Bool? = { WallClock.isSynchronized() },
                onJump: @escaping @Sendable (Jump) -> Void,
                onSynchronization: @escaping @Sendable (Bool?) -> Void = { _ in }) {
        self.synchronizationInterval = synchronizationInterval
        self.threshold = threshold
        self.synchronized = synchronized
        self.onJump = onJump
        self.onSynchronization = onSynchronization
        state = Mutex((Status(synchronized: synchronized(), jumps: 0), nil))
    }

    deinit { stop() }

    public var status: Status { state.withLock { $0.status } }

    /// Why the kernel cannot tell of the wall clock's sets (the timerfd that tells could
    /// not be made or armed), in words for the log.
    public struct Unwatchable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Follows the wall clock's sets, and the kernel's word on synchronisation every
    /// `synchronizationInterval`, until `stop()`. `onFailure`: the kernel stopped telling of
    /// sets (a timerfd that could not be re-armed); jumps are not seen after it.
    public func start(onFailure: @escaping @Sendable (Unwatchable) -> Void = { _ in }) throws(Unwatchable) {
        stop()
        let sets: WallClockSetEvents
        do {
            sets = try WallClockSetEvents(queue: queue, onSet: { [weak self] in self?.check() },
                                          onFailure: { onFailure(Unwatchable(description: "\($0)")) })
        } catch {
            throw Unwatchable(description: "\(error)")
        }
        // The reading the first set is measured from, after the timerfd is armed: a set
        // between the two is in this reading, one after it is an event.
        queue.sync { check() }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let every = DispatchTimeInterval.milliseconds(max(1, Int((synchronizationInterval / .milliseconds(1)).rounded())))
        timer.schedule(deadline: .now() + every, repeating: every, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.checkSynchronization() }
        timer.activate()
        let started = Running(sets: sets, synchronization: timer)
        running.withLock { $0 = started }
    }

    public func stop() {
        running.withLock { r in
            r?.cancel()
            r = nil
        }
    }

    /// One comparison of the clocks, read now, against the last.
    func check() {
        let (wall, monotonic) = Self.reading(within: threshold / 4)
        check(wall: wall, monotonic: monotonic)
    }

    /// The kernel's word on synchronisation, read now; a change is handed on.
    func checkSynchronization() {
        let synced = synchronized()
        let changed = state.withLock { s in
            defer { s.status.synchronized = synced }
            return s.status.synchronized != synced
        }
        if changed { onSynchronization(synced) }
    }

    /// The wall clock and the monotonic one read at the same moment, as nearly as a thread
    /// can: the monotonic clock is read on both sides of the wall clock and the middle kept.
    /// A thread held between two reads (a loaded machine, a stopped process) would otherwise
    /// put that wait between them, and a wait past the threshold would pass for a jump; a
    /// pair further apart than `within` is read again (the closest of a few tries kept).
    static func reading(within: Duration, tries: Int = 5,
                        wall: () -> Date = { Date() },
                        monotonic: () -> ContinuousClock.Instant = { .now })
        -> (wall: Date, monotonic: ContinuousClock.Instant)
    {
        func read() -> (wall: Date, monotonic: ContinuousClock.Instant, spread: Duration) {
            let before = monotonic()
            let now = wall()
            let spread = before.duration(to: monotonic())
            return (now, before.advanced(by: spread / 2), spread)
        }
        var best = read()
        for _ in 1..<max(1, tries) where best.spread > within {
            let next = read()
            if next.spread < best.spread { best = next }
        }
        return (best.wall, best.monotonic)
    }

    /// One comparison of the clocks (and of the kernel's word) against the last.
    func check(wall: Date, monotonic: ContinuousClock.Instant) {
        let synced = synchronized()
        let limit = Double(threshold.components.seconds) + Double(threshold.components.attoseconds) / 1e18
        let (jump, syncChanged): (Jump?, Bool) = state.withLock { s in
            defer { s.last = (wall, monotonic) }
            let syncChanged = s.status.synchronized != synced
            s.status.synchronized = synced
            guard let last = s.last else { return (nil, syncChanged) }
            let passed = last.monotonic.duration(to: monotonic)
            let expected = last.wall.addingTimeInterval(
                Double(passed.components.seconds) + Double(passed.components.attoseconds) / 1e18)
            let step = wall.timeIntervalSince(expected)
            guard abs(step) > limit else { return (nil, syncChanged) }
            let jump = Jump(seconds: (step * 1000).rounded() / 1000, from: expected.iso8601Milliseconds,
                            to: wall.iso8601Milliseconds)
            s.status.jumps += 1
            s.status.lastJump = jump
            return (jump, syncChanged)
        }
        if syncChanged { onSynchronization(synced) }
        if let jump { onJump(jump) }
    }
}
