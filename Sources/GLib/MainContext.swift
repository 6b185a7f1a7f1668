internal import CGio
import Dispatch
import FoundationEssentials
import Glibc

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
