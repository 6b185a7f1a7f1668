internal import CGStreamer
import GLib

extension Object {
    /// g_object_weak_ref: `callback` runs once when the GObject is finalized (on the
    /// thread that drops the last reference). For tests that prove nothing leaks.
    public func onFinalize(_ callback: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(callback)).toOpaque()
        g_object_weak_ref(cast(raw), { userData, _ in
            guard let userData else { return }
            let box = Unmanaged<Box<@Sendable () -> Void>>.fromOpaque(userData)
            box.takeUnretainedValue().value()
            box.release()
        }, box)
    }
}
