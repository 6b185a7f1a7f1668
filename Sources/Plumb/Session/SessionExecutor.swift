import Foundation
import GStreamer
import Synchronization

/// The capture session's serial executor: ONE thread that runs the session actor's
/// jobs and, between them, iterates the session's GMainContext — so the pipeline's
/// bus messages (dispatched by that context) and the session's own work never run at
/// the same time, and no lock is needed between them. Linux Swift has no
/// `DispatchSerialQueue`; this is the GLib-flavoured equivalent.
///
/// The thread sleeps inside `g_main_context_iteration` when it has nothing to do.
/// Enqueueing a job calls `g_main_context_wakeup`, which makes a blocked iteration
/// return — or, when the thread is not blocked yet, makes its next iteration return
/// at once — so a job is never stranded and nothing polls.
public final class SessionExecutor: SerialExecutor, Sendable {
    /// The context the thread iterates; attach bus watches and timers here.
    public let context: MainContext

    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopping = false
        var thread: pthread_t?
    }

    private let queue = Mutex(Queue())
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(name: String = "plumb.session", context: MainContext = MainContext()) {
        self.context = context
        // The thread holds the executor until it ends (after `stop()`), so the executor
        // outlives every job it was given.
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
        started.wait()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        context.wakeup()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the caller is on the executor's thread (running a job or dispatching a
    /// GSource of `context`): either way it has the session to itself.
    public var isCurrent: Bool {
        guard let t = queue.withLock({ $0.thread }) else { return false }
        return pthread_equal(t, pthread_self()) != 0
    }

    public func isIsolatingCurrentContext() -> Bool? { isCurrent }

    public func checkIsolated() {
        precondition(isCurrent, "not on the capture session's executor thread")
    }

    /// Ends the thread once the jobs already queued have run. Does not wait, so it may be
    /// called from the executor's own thread (an actor's deinit can run there).
    public func stop() {
        queue.withLock { $0.stopping = true }
        context.wakeup()
    }

    /// Waits (blocking) until the thread has ended; for tests that count threads.
    public func waitUntilStopped(timeout: Duration) -> Bool {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return finished.wait(timeout: .now() + seconds) == .success
    }

    private func run() {
        queue.withLock { $0.thread = pthread_self() }
        context.pushThreadDefault()
        started.signal()
        let me = asUnownedSerialExecutor()
        while true {
            let (jobs, stopping) = queue.withLock { q in
                defer { q.jobs.removeAll(keepingCapacity: true) }
                return (q.jobs, q.stopping)
            }
            if jobs.isEmpty {
                if stopping { break }
                // Sleeps until a GSource is ready or `enqueue`/`stop` wakes it.
                context.iterate(mayBlock: true)
            } else {
                for job in jobs { job.runSynchronously(on: me) }
                // Bus messages get their turn between batches of jobs.
                context.iterate(mayBlock: false)
            }
        }
        // Dispatch what is still pending so GLib can release what it holds for us.
        while context.iterate(mayBlock: false) {}
        context.popThreadDefault()
        queue.withLock { $0.thread = nil }
        finished.signal()
    }
}
