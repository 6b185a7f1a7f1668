import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase
import Synchronization

/// A client of gpsd, the daemon that owns the GPS on Linux boards: it connects over TCP,
/// asks for JSON reports (`?WATCH={"enable":true,"json":true};`) and for the fix gpsd
/// already holds (`?POLL;`: a receiver reports about once a second, and a one-shot capture
/// cannot wait for the next report), and keeps gpsd's latest TPV report and when it
/// arrived, on the monotonic clock. `waitForAnswer(until:)` lets a capture wait, a bounded
/// time, for gpsd's word on its receiver: a fix or a no-fix, in the answer to the poll or
/// in a report. A poll answered before any receiver reported says nothing yet: gpsd run
/// without -n (Debian's default) opens its receiver only when a client watches, and answers
/// the poll that follows the watch before the receiver's first report.
///
/// It runs on a thread of its own and never blocks a caller: `snapshot` only reads what
/// the thread last stored. When gpsd is absent, refuses, or goes away (restarted), the
/// thread tries again after a `Backoff` (a connection that brought a gpsd message starts
/// the backoff over); each outage is logged once, when it starts, and each recovery once.
/// Lines that are not gpsd's JSON are skipped and counted (`Snapshot.skippedLines`).
///
/// A no-fix report replaces the held fix (the receiver says it no longer knows where it
/// is) unless it comes from another receiver than the fix did. A report of a fix without
/// its position (gpsd's first, as it opens a receiver) is not held: it says nothing yet.
public final class GPSDClient: Sendable {
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort: UInt16 = 2947
    /// What the client sends on each connection.
    static let watchCommand = "?WATCH={\"enable\":true,\"json\":true};\n"
    /// Asks for the fix gpsd holds for each receiver the watch activated (gpsd answers
    /// only for watched receivers, so it follows the watch).
    static let pollCommand = "?POLL;\n"

    public enum State: Sendable, Equatable, CustomStringConvertible {
        /// Not started, or stopped.
        case stopped
        case connecting
        case connected
        /// gpsd cannot be reached (or went away): why; the client tries again.
        case unavailable(String)

        public var description: String {
            switch self {
            case .stopped: return "stopped"
            case .connecting: return "connecting"
            case .connected: return "connected"
            case .unavailable(let why): return "unavailable: \(why)"
            }
        }
    }

    /// What the client tells its log: an outage (once, when it starts), a recovery, the
    /// first skipped line, an ERROR message from gpsd.
    public struct Notice: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable { case connected, unavailable, skippedLine, gpsdError }
        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    /// What the client knows, at one moment.
    public struct Snapshot: Sendable, Equatable {
        public var state = State.stopped
        /// gpsd's release ("3.22"), from its VERSION message on the current or last connection.
        public var release: String?
        /// The latest TPV report held (see the type's notes on no-fix reports).
        public var fix: GPSFix?
        /// When `fix` was received.
        public var received: ContinuousClock.Instant?
        /// Lines skipped because they were not gpsd's JSON, since the start.
        public var skippedLines = 0
        /// Connections made to gpsd (that brought at least one of its messages), since the start.
        public var connections = 0
        /// Whether gpsd answered the poll on the current connection.
        public var polled = false
        /// How many receivers gpsd had that reported, in its answer to the poll (nil before it).
        public var receivers: Int?

        /// How long ago `fix` was received.
        public func fixAge(now: ContinuousClock.Instant = .now) -> Duration? {
            received.map { now - $0 }
        }
    }

    public let host: String
    public let port: UInt16
    public let backoff: Backoff

    /// What the thread shares with the client (the thread holds only this, never the client).
    private final class Shared: Sendable {
        let snapshot = Mutex(Snapshot())
        /// Tasks in `waitForAnswer`, resumed when gpsd has a receiver's word or cannot be reached.
        let answer = AnswerGate()
        let wakeup = Wakeup()
        let stopping = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()
    private let started = Atomic<Bool>(false)
    private let log: @Sendable (Notice) -> Void

    /// `log` gets one line per outage, recovery and first skipped line.
    public init(host: String = GPSDClient.defaultHost, port: UInt16 = GPSDClient.defaultPort,
                backoff: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(10)),
                log: @escaping @Sendable (Notice) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.backoff = backoff
        self.log = log
    }

    deinit { stop() }

    /// "gpsd at HOST:PORT", for messages.
    public var name: String { Self.name(host: host, port: port) }

    public static func name(host: String, port: UInt16) -> String {
        host.contains(":") ? "gpsd at [\(host)]:\(port)" : "gpsd at \(host):\(port)"
    }

    public var snapshot: Snapshot { shared.snapshot.withLock { $0 } }

    /// Returns when gpsd has given a receiver's word (a fix, or that it has none: mode 1 or
    /// more, in the answer to the poll or in a report) or the client has failed to reach it,
    /// or at `deadline`, whichever comes first; at once if that has happened already. True
    /// when there was an answer or a failure, false at the deadline.
    @discardableResult
    public func waitForAnswer(until deadline: ContinuousClock.Instant) async -> Bool {
        let shared = self.shared
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await shared.answer.passed() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    /// Starts the thread; at most once.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.snapshot.withLock { $0.state = .connecting }
        let shared = self.shared, host = self.host, port = self.port, backoff = self.backoff, log = self.log
        startThread(named: "plumb.gpsd") {
            Self.run(shared: shared, host: host, port: port, backoff: backoff, log: log)
            shared.finished.signal()
        }
    }

    /// Stops the thread and waits for it (it is never blocked for long: every wait also
    /// watches the wakeup). Idempotent; the held fix stays readable.
    public func stop() {
        guard started.load(ordering: .acquiring), !shared.stopping.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        shared.wakeup.signal()
        shared.finished.wait()
        shared.snapshot.withLock { $0.state = .stopped }
        shared.answer.open()
    }

    // MARK: The thread

    private static func run(shared: Shared, host: String, port: UInt16, backoff: Backoff,
                            log: @escaping @Sendable (Notice) -> Void) {
        let name = Self.name(host: host, port: port)
        var failures = 0
        /// The outage already logged, so that a gpsd that stays away is said once.
        var outageLogged = false
        var skipLogged = false
        while !shared.stopping.load(ordering: .acquiring) {
            shared.snapshot.withLock { $0.state = .connecting }
            var why: String
            do {
                guard let socket = try LineSocket.connect(host: host, port: port, timeout: .seconds(5),
                                                          maximumLine: GPSDMessage.maximumLineLength,
                                                          wakeup: shared.wakeup)
                else { return }
                if socket.send(watchCommand + pollCommand) {
                    let session = read(socket, shared: shared, name: name, log: log, skipLogged: &skipLogged) {
                        // The first gpsd message: connected (again).
                        failures = 0
                        if outageLogged || shared.snapshot.withLock({ $0.connections }) == 1 {
                            let release = shared.snapshot.withLock { $0.release }
                            log(Notice(kind: .connected, message: "connected to \(name)\(release.map { " (gpsd \($0))" } ?? "")"))
                        }
                        outageLogged = false
                    }
                    guard let ended = session else { return }  // stopped
                    why = ended
                } else {
                    why = "it closed the connection before the watch request"
                }
            } catch {
                why = "\(error)"
            }
            failures += 1
            shared.snapshot.withLock { s in
                s.state = .unavailable(why)
                s.polled = false
            }
            shared.answer.open()
            if !outageLogged {
                outageLogged = true
                log(Notice(kind: .unavailable,
                           message: "\(name): \(why); stills and recordings go without GPS until it answers (retrying in the background)"))
            }
            if shared.wakeup.sleep(backoff.delay(afterFailures: failures)) { return }
        }
    }

    /// Reads one connection until it ends; why it ended, or nil when stopped. `greeted`
    /// runs at the first gpsd message.
    private static func read(_ socket: LineSocket, shared: Shared, name: String, log: @Sendable (Notice) -> Void,
                             skipLogged: inout Bool, greeted: () -> Void) -> String? {
        var greetedYet = false
        var errorsLogged = Set<String>()
        while true {
            switch socket.nextLine(wakeup: shared.wakeup) {
            case .woken: return nil
            case .closed: return "the connection was closed"
            case .line(let line):
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
                let message: GPSDMessage
                do {
                    message = try GPSDMessage.parse(line)
                } catch {
                    shared.snapshot.withLock { $0.skippedLines += 1 }
                    if !skipLogged {
                        skipLogged = true
                        log(Notice(kind: .skippedLine,
                                   message: "\(name): skipped a line that is not gpsd's JSON (\(error)); further ones are only counted"))
                    }
                    continue
                }
                let received = ContinuousClock.now
                shared.snapshot.withLock { s in
                    if !greetedYet {
                        s.state = .connected
                        s.connections += 1
                    }
                    switch message {
                    case .tpv(let fix): hold(fix, at: received, in: &s)
                    case .poll(let active, let fixes):
                        // A receiver with a position, else one that says it has none; one gpsd
                        // has not heard from yet (mode 0) says nothing about the fix held.
                        if let fix = fixes.first(where: \.hasPosition) ?? fixes.first(where: { $0.mode == .noFix }) {
                            hold(fix, at: received, in: &s)
                        }
                        s.polled = true
                        s.receivers = active
                    case .version(let release, _, _): s.release = release
                    case .error, .other: break
                    }
                }
                if message.hasReceiversWord { shared.answer.open() }
                if case .error(let text) = message, errorsLogged.insert(text).inserted {
                    log(Notice(kind: .gpsdError, message: "\(name) says: \(text)"))
                }
                if !greetedYet {
                    greetedYet = true
                    greeted()
                }
            }
        }
    }

    /// Holds a TPV report: a fix always; a no-fix report unless it is about another
    /// receiver than the held fix; a fix without its position never.
    static func hold(_ fix: GPSFix, at time: ContinuousClock.Instant, in s: inout Snapshot) {
        if fix.claimsPositionItLacks { return }
        if !fix.hasPosition, let held = s.fix, held.hasPosition, let a = held.device, let b = fix.device, a != b {
            return
        }
        s.fix = fix
        s.received = time
    }
}

extension GPSDMessage {
    /// Whether the message gives a receiver's word: a report, or a poll's answer, with a
    /// position or saying it has none (mode 0: gpsd has not heard from the receiver yet; a
    /// fix without its position: not yet said).
    var hasReceiversWord: Bool {
        switch self {
        case .tpv(let fix): return fix.hasPosition || fix.mode == .noFix
        case .poll(_, let fixes): return fixes.contains { $0.hasPosition || $0.mode == .noFix }
        case .version, .error, .other: return false
        }
    }
}

/// Where tasks wait for gpsd's word on its receiver (`GPSDClient.waitForAnswer`): closed
/// until it comes or gpsd cannot be reached (or the client stops), then open for good.
private final class AnswerGate: Sendable {
    private struct State {
        var open = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// gpsd gave its receiver's word, or could not be reached: every waiter returns, and
    /// later ones at once.
    func open() {
        let waiting = state.withLock { s in
            s.open = true
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for c in waiting { c.resume(returning: true) }
    }

    /// True once open; false when the waiting task is cancelled first.
    func passed() async -> Bool {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { s in
                    if s.open { return true }
                    // A cancellation before this registration has set the task's flag already.
                    if Task.isCancelled { return false }
                    s.waiters[id] = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
