internal import CGio

/// A connection to a D-Bus message bus, through GDBus: method calls whose replies D-Bus
/// type-checks, signals sent and subscribed to, bus names watched.
///
/// Threading: a connection belongs to a `MainContextThread`, and every callback (a call's
/// completion, a signal, a name appearing or vanishing) runs on that thread, one at a
/// time, between the thread's other work; state that only callbacks touch needs no lock.
/// The methods may be called from any thread. GDBus calls back on the thread-default
/// context of the thread that registered the callback, so registering (an asynchronous
/// call, a subscription, a watch) happens on the connection's thread: at once when called
/// there, else queued to it.
///
/// Closing (`close()`, or releasing the connection): every subscription ends, calls in
/// flight complete with `GLibError.IOErrorCode.closed`, and the thread keeps running
/// until GDBus has called back everything it was given — so stopping the thread after
/// closing leaks nothing, and every GVariant and GObject reference is released. Use a
/// connection while its thread runs: once the thread has ended nothing is dispatched, but
/// the connection can still be closed and released (the caller stands in for the thread).
public final class DBusConnection: Sendable {
    public enum Bus: Sendable, Equatable, CustomStringConvertible {
        case system
        case session
        /// A D-Bus address ("unix:path=/run/dbus/test"), for tests and unusual set-ups.
        case address(String)

        public var description: String {
            switch self {
            case .system: return "system"
            case .session: return "session"
            case .address(let a): return a
            }
        }
    }

    let core: DBusConnectionCore

    /// Connects to `bus` as a client (g_dbus_address_get_for_bus_sync for the system or
    /// session bus, then g_dbus_connection_new_for_address_sync: authenticated, Hello sent;
    /// a private connection, exit-on-close off), on `thread`; blocks until connected.
    public init(_ bus: Bus, thread: MainContextThread) throws(GLibError) {
        core = try thread.sync { () throws(GLibError) -> DBusConnectionCore in
            try DBusConnectionCore(bus: bus, thread: thread)
        }
    }

    /// Closes without waiting (see `close()`).
    deinit {
        let core = core
        core.perform { core.teardown() }
    }

    /// The thread every callback runs on.
    public var thread: MainContextThread { core.thread }
    public var bus: Bus { core.bus }

    /// This connection's unique name on the bus (":1.42"); nil once closed.
    public var uniqueName: String? {
        core.withConnection { GIO.loaded.dbus_connection_get_unique_name($0).map { String(cString: $0) } } ?? nil
    }

    /// Sends a signal (g_dbus_connection_emit_signal): to every subscriber, or to
    /// `destination` only.
    public func emit(path: String, interface: String, member: String, arguments: [Variant] = [],
                     destination: String? = nil) throws(GLibError) {
        if let destination { try DBusName.checkBusName(destination) }
        try DBusName.checkPath(path)
        try DBusName.checkInterface(interface)
        try DBusName.checkMember(member)
        let body = try Variant.tuple(arguments).makeGVariant()
        defer { g_variant_unref(body) }
        let error: GLibError?? = core.withConnection { connection in
            var error: UnsafeMutablePointer<GError>?
            guard GIO.loaded.dbus_connection_emit_signal(connection, destination, path, interface, member, body, &error) != 0
            else { return GLibError(taking: error, fallback: "cannot emit \(interface).\(member)") }
            return nil
        }
        guard let error else { throw .closedConnection }
        if let error { throw error }
    }

    /// Closes the connection: cancels every subscription, fails the calls in flight
    /// (`GLibError.IOErrorCode.closed`), and waits until GDBus has called back everything —
    /// except when called on the connection's thread, which cannot wait for its own
    /// callbacks: the thread then keeps running until they are done, even if stopped.
    /// Idempotent.
    public func close() {
        let core = core
        thread.sync { core.teardown() }
        if !thread.isCurrent { core.waitUntilFinished() }
    }

    /// Connections and callbacks GDBus still holds, for leak tests.
    package static var live: (connections: Int, callbacks: Int) { DBusConnectionCore.live.withLock { $0 } }
}

extension GLibError {
    /// What a call on a closed connection gets.
    static let closedConnection = GLibError(domain: ioErrorDomain, code: IOErrorCode.closed,
                                            message: "the D-Bus connection is closed")
}
