internal import CGio
internal import CGioShim
import FoundationEssentials
import Glibc
import Synchronization

/// What a `DBusConnection`, its calls and its subscriptions share: the GDBusConnection,
/// the thread its callbacks run on, and the count of what GDBus still holds for us.
///
/// GDBus calls back on the thread-default context of the thread that made the call or
/// the subscription, so everything that registers a callback runs on `thread` (`perform`).
///
/// Life: open, then torn down (subscriptions cancelled, the connection closed, our
/// reference dropped), then finished: GDBus has run every callback and destroy notify it
/// was given, and the GDBusConnection is finalized. Until then the thread is held, so it
/// keeps iterating: a callback that never runs would leak what it owns, and a GTask
/// waiting on the context would keep the context and the connection alive in a cycle.
///
/// `@unchecked Sendable`: `raw`, `outstanding`, `tornDown` and `held` are guarded by
/// `condition`; `subscriptions` is touched only on `thread`.
final class DBusConnectionCore: @unchecked Sendable {
    let thread: MainContextThread
    let bus: DBusConnection.Bus
    private let condition = Condition()
    /// Our reference; nil once torn down.
    private var raw: OpaquePointer?
    /// Callbacks and destroy notifies GDBus has yet to run, plus one for the GDBusConnection
    /// until it is finalized.
    private var outstanding = 0
    private var tornDown = false
    private var held = false
    private var subscriptions: [ObjectIdentifier: DBusSubscription.Registration] = [:]

    /// GDBusConnections opened here and not finalized yet, and callbacks GDBus still owes;
    /// for leak tests.
    package static let live = Mutex((connections: 0, callbacks: 0))

    /// Connects (on `thread`, so the connection's own sources land on its context).
    init(bus: DBusConnection.Bus, thread: MainContextThread) throws(GLibError) {
        self.thread = thread
        self.bus = bus
        let gio = try GIO.load()
        var error: UnsafeMutablePointer<GError>?
        let address: String
        switch bus {
        case .address(let a):
            address = a
        case .system, .session:
            guard let a = takeString(gio.dbus_address_get_for_bus_sync(
                bus == .system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, nil, &error)) else {
                throw GLibError(taking: error, fallback: "no address for the \(bus) bus")
            }
            address = a
        }
        // A private connection (not g_bus_get's shared one): closing it affects no one else.
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = gio.dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw GLibError(taking: error, fallback: "cannot connect to \(address)")
        }
        // Private connections have it off already; a bus going away must never end the process.
        gio.dbus_connection_set_exit_on_close(connection, 0)
        raw = connection
        begin(connection: true)
        g_object_weak_ref(UnsafeMutablePointer(connection), { userData, _ in
            Unmanaged<DBusConnectionCore>.fromOpaque(userData!).takeRetainedValue().end(connection: true)
        }, Unmanaged.passRetained(self).toOpaque())
    }

    /// Runs `work` on the thread: at once when on it, else queued (or, after the thread
    /// has ended, on the caller standing in for it).
    func perform(_ work: @escaping @Sendable () -> Void) {
        if thread.isCurrent { return work() }
        if !thread.enqueue(work) { thread.sync(work) }
    }

    /// A reference to the GDBusConnection for the length of `body`; nil once torn down.
    func withConnection<T>(_ body: (OpaquePointer) -> T) -> T? {
        let connection: OpaquePointer? = condition.withLock {
            if let raw { g_object_ref(UnsafeMutableRawPointer(raw)) }
            return raw
        }
        guard let connection else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        return body(connection)
    }

    /// Counts a callback (or destroy notify) handed to GDBus.
    func begin(connection: Bool = false) {
        condition.withLock { outstanding += 1 }
        Self.live.withLock { connection ? ($0.connections += 1) : ($0.callbacks += 1) }
    }

    /// GDBus has run it; the last one after teardown releases the thread.
    func end(connection: Bool = false) {
        Self.live.withLock { connection ? ($0.connections -= 1) : ($0.callbacks -= 1) }
        let release = condition.withLock { () -> Bool in
            outstanding -= 1
            guard outstanding == 0, tornDown else { return false }
            condition.broadcast()
            defer { held = false }
            return held
        }
        if release { thread.releaseHold() }
    }

    // MARK: On the thread

    func register(_ registration: DBusSubscription.Registration) {
        subscriptions[ObjectIdentifier(registration)] = registration
    }

    func unregister(_ registration: DBusSubscription.Registration) {
        subscriptions[ObjectIdentifier(registration)] = nil
    }

    /// Cancels the subscriptions, closes the connection and drops our reference; holds
    /// the thread until GDBus has called back everything. Idempotent.
    func teardown() {
        guard let connection = condition.withLock({ () -> OpaquePointer? in
            guard !tornDown else { return nil }
            tornDown = true
            return raw.take()
        }) else { return }
        for registration in subscriptions.values { registration.cancel(on: connection) }
        subscriptions.removeAll()
        // In-flight calls fail with G_IO_ERROR_CLOSED once it is closed: their callbacks run too.
        begin()
        GIO.loaded.dbus_connection_close(connection, nil, { source, result, userData in
            let core = Unmanaged<DBusConnectionCore>.fromOpaque(userData!).takeRetainedValue()
            _ = GIO.loaded.dbus_connection_close_finish(OpaquePointer(source), result, nil)  // already closed: fine
            core.end()
        }, Unmanaged.passRetained(self).toOpaque())
        g_object_unref(UnsafeMutableRawPointer(connection))
        condition.withLock {
            if outstanding > 0 {
                held = true
                thread.hold()
            } else {
                condition.broadcast()
            }
        }
    }

    /// Waits until GDBus has called back everything (after `teardown`); not on the thread.
    func waitUntilFinished() {
        condition.withLock {
            while !(tornDown && outstanding == 0) { condition.wait() }
        }
    }
}
