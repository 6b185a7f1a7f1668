internal import CGStreamer
import Foundation

/// A one-shot timer on a MainContext (g_timeout_source_new): its work runs once, on
/// the thread iterating that context, unless cancelled first.
public final class ContextTimer: @unchecked Sendable {  // `source` is only touched under `lock`
    private let lock = NSLock()
    /// The attached GSource; nil once cancelled.
    private var source: UnsafeMutablePointer<GSource>?

    fileprivate init(_ source: UnsafeMutablePointer<GSource>) { self.source = source }

    /// Stops the timer if it has not fired (g_source_destroy; safe from any thread).
    /// Idempotent; a cancel from inside the work itself is harmless.
    public func cancel() {
        let s: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let s else { return }
        g_source_destroy(s)
        g_source_unref(s)
    }

    deinit { cancel() }
}

extension MainContext {
    /// Runs `work` once after `delay` on the thread iterating this context. Keep the
    /// returned timer to cancel it; dropping it cancels it too.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ContextTimer {
        let millis = max(0, delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        let source = g_timeout_source_new(guint(clamping: millis))!
        let box = Unmanaged.passRetained(Box(work)).toOpaque()
        g_source_set_callback(source, { userData in
            Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(userData!).takeUnretainedValue().value()
            return 0  // G_SOURCE_REMOVE: one shot
        }, box, { userData in
            Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(userData!).release()
        })
        g_source_attach(source, pointer)
        return ContextTimer(source)
    }
}
