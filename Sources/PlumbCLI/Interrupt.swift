import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase
import PlumbCommandLine
import Synchronization

/// Ctrl-C / SIGTERM for the one-shot commands: the first signal asks the command to
/// finish properly (a recording is stopped with EOS and finalized, a photo not yet
/// taken is dropped), the second aborts at once with exit code 130.
///
/// The command awaits `requested()` alongside its own work, or checks `isRequested`
/// between steps. Before aborting, the cleanup set last runs (e.g. removing a
/// temporary file), so even an abort leaves no partial photo behind.
final class Interrupt: Sendable {
    /// The signals an Interrupt watches.
    static let signals = [SIGINT, SIGTERM]

    private let core: Core
    private let watch: SignalWatch

    /// Starts watching SIGINT and SIGTERM; one that came before (caught since the program
    /// started) counts as received now. `abortMessage` is printed on a second signal.
    init(abortMessage: String) {
        let core = Core(abortMessage: abortMessage)
        self.core = core
        watch = SignalWatch(Self.signals) { core.received($0) }
    }

    deinit { watch.cancel() }

    /// The first signal received, if any.
    var signal: Int32? { core.state.withLock { $0.signal } }
    var isRequested: Bool { signal != nil }

    /// "SIGINT" or "SIGTERM", for messages.
    var signalName: String { signal == SIGTERM ? "SIGTERM" : "SIGINT" }

    /// What to undo if a second signal aborts the command.
    func setCleanup(_ cleanup: (@Sendable () -> Void)?) {
        core.state.withLock { $0.cleanup = cleanup }
    }

    /// Returns when the first signal has arrived (at once if it already has), or when
    /// the waiting task is cancelled.
    func requested() async {
        let core = self.core
        let id = core.state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = core.state.withLock { s in
                    // A cancellation that came before this registration has already set the
                    // task's flag, so it is seen here and nothing is left waiting.
                    if s.signal != nil || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            core.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// The state the signal handler shares with the command.
    private final class Core: Sendable {
        struct State {
            var signal: Int32?
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
            var nextID = 0
            var cleanup: (@Sendable () -> Void)?
        }

        let state = Mutex(State())
        let abortMessage: String

        init(abortMessage: String) { self.abortMessage = abortMessage }

        /// On a Dispatch queue: a signal arrived.
        func received(_ number: Int32) {
            let (first, waiters, cleanup) = state.withLock { s in
                guard s.signal == nil else { return (false, [CheckedContinuation<Void, Never>](), s.cleanup) }
                s.signal = number
                defer { s.waiters.removeAll() }
                return (true, Array(s.waiters.values), s.cleanup)
            }
            if first {
                waiters.forEach { $0.resume() }
                return
            }
            cleanup?()
            StandardStream.error.write("\n\(abortMessage)\n")
            // _exit, not exit: exit's handlers take time, and a command finishing meanwhile on
            // the main thread would exit with its own status (0) while this one is in them.
            _exit(ExitCode.aborted.rawValue)
        }
    }
}
