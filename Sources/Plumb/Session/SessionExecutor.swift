import Dispatch
import FoundationEssentials
import Glibc
import GLib

/// The capture session's serial executor: ONE thread that runs the session actor's
/// jobs and, between them, iterates the session's GMainContext — so the pipeline's
/// bus messages (dispatched by that context) and the session's own work never run at
/// the same time, and no lock is needed between them. Linux Swift has no
/// `DispatchSerialQueue`; this is the GLib-flavoured equivalent.
///
/// The thread is a `MainContextThread`: it sleeps inside `g_main_context_iteration` when
/// it has nothing to do, and a job enqueued wakes it, so a job is never stranded and
/// nothing polls.
public final class SessionExecutor: SerialExecutor, Sendable {
    private let thread: MainContextThread

    /// The context the thread iterates; attach bus watches and timers here.
    public var context: MainContext { thread.context }

    public init(name: String = "plumb.session", context: MainContext = MainContext()) {
        thread = MainContextThread(context: context, name: name)
        // The thread holds the executor until it ends (after `stop()`), so the executor
        // outlives every job it was given.
        thread.retainUntilEnded(self)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let me = asUnownedSerialExecutor()
        thread.enqueue { job.runSynchronously(on: me) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the caller is on the executor's thread (running a job or dispatching a
    /// GSource of `context`): either way it has the session to itself.
    public var isCurrent: Bool { thread.isCurrent }

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    public func checkIsolated() {
        precondition(isCurrent, "not on the capture session's executor thread")
    }

    /// Ends the thread once the jobs already queued have run. Does not wait, so it may be
    /// called from the executor's own thread (an actor's deinit can run there).
    public func stop() { thread.requestStop() }

    /// Waits (blocking) until the thread has ended; for tests that count threads.
    public func waitUntilStopped(timeout: Duration) -> Bool { thread.waitUntilStopped(timeout: timeout) }
}
