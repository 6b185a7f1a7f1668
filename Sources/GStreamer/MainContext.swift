internal import CGStreamer
import Foundation

/// An owned GMainContext: where a pipeline's bus watch (and later its other
/// GSources) are dispatched. Whoever iterates it decides the thread.
public final class MainContext: @unchecked Sendable {  // GMainContext is thread-safe.
    package let pointer: OpaquePointer

    public init() {
        pointer = g_main_context_new()
    }

    deinit { g_main_context_unref(pointer) }

    /// g_main_context_iteration: dispatches what is ready; blocks for the next event if `mayBlock`.
    @discardableResult
    public func iterate(mayBlock: Bool) -> Bool {
        g_main_context_iteration(pointer, mayBlock ? 1 : 0) != 0
    }

    /// g_main_context_wakeup: makes a blocked `iterate` return.
    public func wakeup() {
        g_main_context_wakeup(pointer)
    }

    /// g_main_context_push_thread_default, for the thread that iterates this context,
    /// so sources that GLib code creates on it (GDBus, libsoup) land here.
    public func pushThreadDefault() { g_main_context_push_thread_default(pointer) }
    public func popThreadDefault() { g_main_context_pop_thread_default(pointer) }

    /// Runs `work` once on the thread iterating this context (g_main_context_invoke_full):
    /// queued when another thread owns the context (a `MainContextThread` owns its
    /// context for its whole life), run at once when the caller owns it — or, as GLib
    /// does, when no thread owns it at all.
    public func invoke(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(work)).toOpaque()
        g_main_context_invoke_full(pointer, G_PRIORITY_DEFAULT, { userData in
            Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(userData!).takeUnretainedValue().value()
            return 0  // G_SOURCE_REMOVE
        }, box, { userData in
            Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(userData!).release()
        })
    }
}

/// A reference box for handing Swift values (the `@Sendable` closures C callbacks
/// run, on whichever thread GLib calls them) through C `void *user_data`.
final class Box<T: Sendable>: Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A thread that iterates one MainContext until stopped — the simplest owner of
/// a bus watch (the capture session's executor is the other).
///
/// The thread owns the context (g_main_context_acquire, through push_thread_default)
/// from before `init` returns until it ends, so `context.invoke` from any other
/// thread always runs on this one.
///
/// `@unchecked Sendable`: all mutable state lives in `Control`, guarded by its condition.
public final class MainContextThread: @unchecked Sendable {
    public let context: MainContext
    private let control = Control()

    /// Shared with the thread, which must not reach back into a deinitializing owner.
    private final class Control: @unchecked Sendable {  // every field is guarded by `condition`
        let condition = NSCondition()
        var running = true
        var started = false
        var finished = false
        var thread: pthread_t?
        /// The context, handed to the thread; it lets go of it before `finished`, so
        /// the context is freed by the owner's deinit, not later on the ending thread.
        var handoff: MainContext?
    }

    public init(context: MainContext = MainContext(), name: String = "plumb.main-context") {
        self.context = context
        let control = self.control
        control.handoff = context
        let thread = Thread { [control] in
            var context = control.condition.withLock { control.handoff.take() }
            context?.pushThreadDefault()  // acquires the context for this thread
            control.condition.withLock {
                control.thread = pthread_self()
                control.started = true
                control.condition.broadcast()
            }
            while control.condition.withLock({ control.running }) {
                context?.iterate(mayBlock: true)
            }
            context?.popThreadDefault()  // releases it
            context = nil
            control.condition.withLock {
                control.finished = true
                control.condition.broadcast()
            }
        }
        thread.name = name
        thread.start()
        control.condition.withLock {
            while !control.started { control.condition.wait() }
        }
    }

    /// Whether the caller is the iterating thread.
    public var isCurrent: Bool {
        control.condition.withLock { control.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Stops iterating and waits for the thread to end. Idempotent: every call
    /// returns once the thread has ended — except a call from the iterating thread
    /// itself, which only asks it to stop after the current dispatch.
    public func stop() {
        let onOwnThread = isCurrent
        control.condition.withLock { control.running = false }
        context.wakeup()
        guard !onOwnThread else { return }
        control.condition.withLock {
            while !control.finished { control.condition.wait() }
        }
    }

    deinit { stop() }
}
