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

    /// Runs `work` once on the thread iterating this context (g_main_context_invoke_full).
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

/// A reference box for handing Swift values through C `void *user_data`.
final class Box<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A thread that iterates one MainContext until stopped — the simplest owner of
/// a bus watch (the capture session's executor is the other).
public final class MainContextThread: @unchecked Sendable {
    public let context: MainContext
    private let lock = NSLock()
    private var running = true
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    public init(context: MainContext = MainContext(), name: String = "plumb.main-context") {
        self.context = context
        let thread = Thread { [context, unowned self] in
            context.pushThreadDefault()
            while self.isRunning { context.iterate(mayBlock: true) }
            context.popThreadDefault()
            self.finished.signal()
        }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    private var isRunning: Bool { lock.withLock { running } }

    /// Stops iterating and waits for the thread to end. Idempotent.
    public func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        context.wakeup()
        finished.wait()
        thread = nil
    }

    deinit { stop() }
}
