internal import CGio
import Dispatch
import FoundationEssentials
import Glibc

/// A thread that owns one MainContext and iterates it until stopped: where GLib calls
/// back (bus watches, timers, libsoup, GDBus), and, through `enqueue`, a serial queue of
/// Swift jobs (what `SessionExecutor` runs the capture session's actor on).
///
/// The thread owns the context (g_main_context_acquire, through push_thread_default, so
/// sources that GLib code creates on this thread land on it) from before `init` returns
/// until it ends, so `context.invoke` from any other thread always runs on this one.
///
/// One thing at a time: the thread sleeps inside g_main_context_iteration when it has
/// nothing to do. `enqueue` wakes it (g_main_context_wakeup, which also makes the next
/// iteration return at once when it is not asleep yet, so a job is never stranded and
/// nothing polls); it runs the queued jobs in order, then one non-blocking iteration, so
/// jobs and GSources never run at the same time and GSources get their turn between batches.
///
/// Ending (`requestStop`, `stop`): the thread runs the jobs already queued, waits for its
/// holds (a closed `DBusConnection` holds it until GDBus has called back everything it was
/// given), dispatches what is still ready so GLib can release what it holds for us, and
/// lets go of the context. Jobs enqueued after that are refused.
///
/// `@unchecked Sendable`: all mutable state lives in `Control`, guarded by its condition.
public final class MainContextThread: @unchecked Sendable {
    public let context: MainContext
    private let control = Control()

    /// Shared with the thread, which must not reach back into a deinitializing owner.
    private final class Control: @unchecked Sendable {  // every var is guarded by `condition`
        let condition = Condition()
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        /// False once the thread has taken its last batch: a later job would never run.
        var accepting = true
        var holds = 0
        var started = false
        var finished = false
        var thread: pthread_t?
        /// The context, handed to the thread; it lets go of it before `finished`, so
        /// the context is freed by the owner's deinit, not later on the ending thread.
        var handoff: MainContext?
        /// Released by the thread once it has ended (see `retainUntilEnded`).
        var retained: [any AnyObject & Sendable] = []
        /// A caller standing in for the ended thread (see `sync`).
        var standIn: pthread_t?
        /// One stand-in at a time: only one thread can own the context.
        let standInLock = Condition()

        func withLock<T>(_ body: () throws -> T) rethrows -> T { try condition.withLock(body) }
    }

    public init(context: MainContext = MainContext(), name: String = "plumb.main-context") {
        self.context = context
        let control = self.control
        control.handoff = context
        let body: @Sendable () -> Void = { [control] in
            var context = control.withLock { control.handoff.take() }
            context?.pushThreadDefault()  // acquires the context for this thread
            control.withLock {
                control.thread = pthread_self()
                control.started = true
                control.condition.broadcast()
            }
            if let context { Self.run(context, control) }
            context?.popThreadDefault()  // releases it
            context = nil
            var retained = control.withLock {
                control.thread = nil
                control.finished = true
                control.condition.broadcast()
                return control.retained.take()
            }
            retained.removeAll()  // after `finished`: a retained owner may stop this thread in its deinit
        }
        // g_thread_new, not Foundation's Thread, whose name never reaches the kernel on Linux:
        // ps, gdb and /proc/self/task/*/comm show this one. The kernel keeps 15 bytes, and
        // GLib 2.74 sets no name at all when given more.
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        g_thread_unref(g_thread_new(String(decoding: name.utf8.prefix(15), as: UTF8.self), { box in
            Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(box!).takeRetainedValue().value()
            return nil
        }, box))  // detached: `Control` tells when it has ended
        control.withLock {
            while !control.started { control.condition.wait() }
        }
    }

    deinit { stop() }

    /// Whether the caller is the iterating thread (or stands in for it, see `sync`).
    public var isCurrent: Bool {
        control.withLock {
            let me = pthread_self()
            return control.thread.map { pthread_equal($0, me) != 0 } ?? false
                || control.standIn.map { pthread_equal($0, me) != 0 } ?? false
        }
    }

    /// Queues `job` to run on the thread, after the jobs queued before it and between
    /// iterations of the context. Returns false, and drops the job, once the thread has
    /// taken its last batch (after a stop).
    @discardableResult
    public func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = control.withLock {
            guard control.accepting else { return false }
            control.jobs.append(job)
            return true
        }
        if accepted { context.wakeup() }
        return accepted
    }

    /// Runs `work` on the thread and waits for it: at once when called on the thread,
    /// queued (as `enqueue`) otherwise. Once the thread has ended, the caller stands in for
    /// it: it acquires the context and pushes it as its thread default, runs `work`, waits
    /// for the holds it took and dispatches what is ready, as the thread would have — so
    /// GLib objects made for this context can still be torn down after a stop.
    public func sync<T, E: Error>(_ work: () throws(E) -> T) throws(E) -> T {
        if isCurrent { return try work() }
        var result: Result<T, E>?
        withoutActuallyEscaping({ result = Result { () throws(E) -> T in try work() } }) { body in
            let call = SyncCall(body)
            if enqueue({ call.run() }) {
                call.done.wait()
            } else {
                standIn(call.run)
            }
        }
        return try result!.get()
    }

    /// Asks the thread to end once the jobs already queued have run and its holds are
    /// released. Does not wait, so it may be called from the thread itself.
    public func requestStop() {
        control.withLock { control.stopping = true }
        context.wakeup()
    }

    /// Stops the thread and waits for it to end. Idempotent: every call returns once the
    /// thread has ended — except a call from the thread itself, which only asks it to stop
    /// after the current dispatch (as `requestStop`).
    public func stop() {
        requestStop()
        guard !isCurrent else { return }
        control.withLock {
            while !control.finished { control.condition.wait() }
        }
    }

    /// Waits (blocking) until the thread has ended; false if `timeout` passes first.
    public func waitUntilStopped(timeout: Duration) -> Bool {
        // Polled against the monotonic clock: a condition's deadline is wall time, which a
        // clock set back by NTP would stretch by as much.
        let deadline = ContinuousClock.now + timeout
        while !control.withLock({ control.finished }) {
            guard ContinuousClock.now < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// Keeps `owner` alive until the thread has ended; released on the thread. For an owner
    /// whose jobs refer to it unretained (`SessionExecutor`). At once if it has ended.
    package func retainUntilEnded(_ owner: some AnyObject & Sendable) {
        control.withLock {
            if !control.finished { control.retained.append(owner) }
        }
    }

    /// Keeps the thread from ending (after a stop request) until `releaseHold`.
    func hold() {
        control.withLock { control.holds += 1 }
    }

    /// Releases a `hold`; from any thread.
    func releaseHold() {
        control.withLock { control.holds -= 1 }
        context.wakeup()
    }

    // MARK: The thread

    /// Runs jobs and iterates the context until stopped with nothing queued and nothing held.
    private static func run(_ context: MainContext, _ control: Control) {
        while true {
            let jobs: [@Sendable () -> Void]? = control.withLock {
                if control.jobs.isEmpty {
                    guard !control.stopping || control.holds > 0 else {
                        control.accepting = false
                        return nil
                    }
                    return []
                }
                return control.jobs.take()
            }
            guard let jobs else { break }
            if jobs.isEmpty {
                // Sleeps until a GSource is ready, or `enqueue`/`requestStop`/`releaseHold` wakes it.
                context.iterate(mayBlock: true)
            } else {
                for job in jobs { job() }
                context.iterate(mayBlock: false)
            }
        }
        finish(context, control)
    }

    /// Dispatches what is ready, and waits for the holds taken meanwhile (a dispatch may
    /// close a D-Bus connection).
    private static func finish(_ context: MainContext, _ control: Control) {
        while true {
            while context.iterate(mayBlock: false) {}
            guard control.withLock({ control.holds > 0 }) else { return }
            context.iterate(mayBlock: true)
        }
    }

    /// Runs `work` on the caller as the thread would: for after the thread has ended, when
    /// nobody owns the context. Waits for the thread to have let go of it first.
    private func standIn(_ work: () -> Void) {
        control.standInLock.lock()
        defer { control.standInLock.unlock() }
        control.withLock {
            while !control.finished { control.condition.wait() }
            control.standIn = pthread_self()
        }
        context.pushThreadDefault()
        work()
        Self.finish(context, control)
        context.popThreadDefault()
        control.withLock { control.standIn = nil }
    }
}

/// A `sync` call's work, handed to the thread while the caller waits: nothing it captures
/// is used by the caller meanwhile, hence `@unchecked Sendable`.
private final class SyncCall: @unchecked Sendable {
    private var body: (() -> Void)?
    let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping () -> Void) { self.body = body }

    /// Runs the work and lets go of it before the caller resumes (`withoutActuallyEscaping`
    /// checks that nothing kept it).
    func run() {
        body?()
        body = nil
        done.signal()
    }
}

extension Array {
    /// The elements, leaving the array empty.
    fileprivate mutating func take() -> [Element] {
        defer { self = [] }
        return self
    }
}
