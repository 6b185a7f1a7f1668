internal import CGio

/// A one-shot timer on a MainContext (g_timeout_source_new): its work runs once, on
/// the thread iterating that context, unless cancelled first.
public final class ContextTimer: Sendable {
    private let source: AttachedSource

    fileprivate init(_ source: UnsafeMutablePointer<GSource>) { self.source = AttachedSource(raw: source) }

    /// Stops the timer if it has not fired (g_source_destroy; safe from any thread).
    /// Idempotent; a cancel from inside the work itself is harmless. Also done when
    /// the timer is released.
    public func cancel() { source.destroy() }
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
