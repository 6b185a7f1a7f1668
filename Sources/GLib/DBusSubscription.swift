internal import CGio
import Synchronization

/// A signal subscription or a name watch on a `DBusConnection`: its handlers run on the
/// connection's thread until `cancel()`, which releasing the subscription does too.
///
/// Once `cancel()` returns no handler starts (a call from another thread does not wait
/// for one already running on the connection's thread). Closing the connection cancels
/// every subscription on it.
public final class DBusSubscription: Sendable {
    private let registration: Registration

    init(_ registration: Registration) { self.registration = registration }

    /// g_dbus_connection_signal_unsubscribe or g_bus_unwatch_name, on the connection's
    /// thread. Idempotent.
    public func cancel() { registration.cancel() }

    deinit { registration.cancel() }

    /// What GDBus holds as user_data: the handlers, and the id to cancel with.
    ///
    /// `@unchecked Sendable`: `id` is touched only on the connection's thread.
    final class Registration: @unchecked Sendable {
        enum Kind {
            case signal(@Sendable (DBusSignal) -> Void)
            case name(appeared: @Sendable (_ owner: String) -> Void, vanished: @Sendable () -> Void)
        }

        let core: DBusConnectionCore
        let kind: Kind
        let cancelled = Atomic(false)
        /// The subscription or watch id; 0 before `start` and after cancelling.
        private var id: guint = 0

        init(core: DBusConnectionCore, kind: Kind) {
            self.core = core
            self.kind = kind
        }

        /// Subscribes, on the thread, with `subscribe(connection, userData, destroyNotify)`
        /// returning the id; nothing if cancelled or closed meanwhile.
        func start(_ subscribe: @escaping @Sendable (OpaquePointer, UnsafeMutableRawPointer) -> guint) {
            core.perform { [self] in
                guard !cancelled.load(ordering: .sequentiallyConsistent) else { return }
                _ = core.withConnection { connection in
                    // Retained by GDBus until the destroy notify, which releases it.
                    core.begin()
                    let userData = Unmanaged.passRetained(self).toOpaque()
                    id = subscribe(connection, userData)
                    if id == 0 {
                        // Refused (arguments are checked before, so not expected): no destroy notify will come.
                        Unmanaged<Registration>.fromOpaque(userData).release()
                        core.end()
                    } else {
                        core.register(self)
                    }
                }
            }
        }

        func cancel() {
            guard !cancelled.exchange(true, ordering: .sequentiallyConsistent) else { return }
            core.perform { [self] in
                _ = core.withConnection { cancel(on: $0) }
                core.unregister(self)
            }
        }

        /// On the thread.
        func cancel(on connection: OpaquePointer) {
            cancelled.store(true, ordering: .sequentiallyConsistent)
            guard id != 0 else { return }
            switch kind {
            case .signal: GIO.loaded.dbus_connection_signal_unsubscribe(connection, id)
            case .name: GIO.loaded.bus_unwatch_name(id)
            }
            id = 0
        }

        /// The destroy notify given to GDBus with the retained registration.
        static let destroy: GDestroyNotify = { userData in
            let registration = Unmanaged<Registration>.fromOpaque(userData!).takeRetainedValue()
            registration.core.end()
        }

        /// The registration behind GDBus's user_data, unless cancelled.
        static func active(_ userData: UnsafeMutableRawPointer?) -> Registration? {
            guard let userData else { return nil }
            let registration = Unmanaged<Registration>.fromOpaque(userData).takeUnretainedValue()
            return registration.cancelled.load(ordering: .sequentiallyConsistent) ? nil : registration
        }
    }
}
