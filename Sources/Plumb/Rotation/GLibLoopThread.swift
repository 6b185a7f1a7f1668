internal import CGio
import Foundation
import Synchronization

/// A thread running a GMainLoop on a GMainContext of its own, pushed as the
/// thread-default context so that GDBus (which dispatches replies, signals and
/// name-watch callbacks to the context current when they were set up) calls
/// back on this thread only.
///
/// `@unchecked Sendable`: the context and loop pointers never change, and the
/// GLib calls made on them from other threads (`g_main_context_invoke_full`,
/// `g_main_loop_quit` run through it) are thread-safe.
final class GLibLoopThread: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = StopFlag()
    private let threadID = ThreadID()

    init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        // The thread holds references of its own: it may outlive this object when
        // stopped from inside (then nobody waits for it).
        let handles = Handles(context: g_main_context_ref(context), loop: g_main_loop_ref(loop))
        let finished = self.finished, threadID = self.threadID
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            threadID.value.withLock { $0 = pthread_self() }
            started.signal()
            g_main_context_push_thread_default(handles.context)
            g_main_loop_run(handles.loop)
            // Let sources being torn down (GDBus destroy notifies) finish on this thread.
            while g_main_context_iteration(handles.context, 0) != 0 {}
            g_main_context_pop_thread_default(handles.context)
            g_main_loop_unref(handles.loop)
            g_main_context_unref(handles.context)
            finished.signal()
        }
        thread.name = name
        thread.start()
        started.wait()
    }

    /// Whether the caller runs on the loop thread.
    var isCurrent: Bool {
        threadID.value.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Runs `work` on the loop thread, in the order of the calls.
    func invoke(_ work: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { userData in
            Unmanaged<WorkBox>.fromOpaque(userData!).takeUnretainedValue().work()
            return 0  // G_SOURCE_REMOVE
        }, box, { userData in
            Unmanaged<WorkBox>.fromOpaque(userData!).release()
        })
    }

    /// Runs `work` on the loop thread and waits for it (directly when already there).
    func sync<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        if isCurrent { return work() }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        invoke {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Quits the loop; waits for the thread to end unless called from it. Idempotent.
    func stop() {
        guard !stopped.isSet else { return }
        stopped.set()
        if isCurrent {
            g_main_loop_quit(loop)
            return
        }
        let handles = Handles(context: context, loop: loop)
        // Quitting from inside the loop: a quit before g_main_loop_run started would be lost.
        invoke { g_main_loop_quit(handles.loop) }
        finished.wait()
    }

    deinit {
        stop()
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

/// The context and loop pointers, for closures run on other threads.
/// `@unchecked Sendable`: GMainContext and GMainLoop are thread-safe GLib objects,
/// and each holder keeps its own reference.
private struct Handles: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
}

/// The loop thread's id, set once it runs.
private final class ThreadID: Sendable {
    let value = Mutex<pthread_t?>(nil)
}

private final class WorkBox: Sendable {
    let work: @Sendable () -> Void
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }
}
