internal import CGio
internal import CGioShim

extension DBusConnection {
    /// Subscribes to the signals matching every criterion given
    /// (g_dbus_connection_signal_subscribe; `sender` may be a well-known name, which the
    /// bus matches against its current owner; `arg0` matches the first argument, a string).
    /// `handler` runs on the connection's thread for each, until the subscription is cancelled.
    public func subscribe(sender: String? = nil, path: String? = nil, interface: String? = nil,
                          member: String? = nil, arg0: String? = nil,
                          _ handler: @escaping @Sendable (DBusSignal) -> Void) throws(GLibError) -> DBusSubscription {
        if let sender { try DBusName.checkBusName(sender) }
        if let path { try DBusName.checkPath(path) }
        if let interface { try DBusName.checkInterface(interface) }
        if let member { try DBusName.checkMember(member) }
        if let arg0, arg0.utf8.contains(0) { throw .invalidArgument("arg0 \(arg0.debugDescription) holds a NUL byte") }
        let registration = DBusSubscription.Registration(core: core, kind: .signal(handler))
        registration.start { connection, userData in
            GIO.loaded.dbus_connection_signal_subscribe(connection, sender, interface, member, path, arg0, G_DBUS_SIGNAL_FLAGS_NONE, {
                _, sender, path, interface, member, parameters, userData in
                guard let registration = DBusSubscription.Registration.active(userData),
                      case .signal(let handler) = registration.kind,
                      let parameters, let arguments = try? Variant(reading: parameters).tupleItems else { return }
                handler(DBusSignal(sender: sender.map { String(cString: $0) } ?? "",
                                   path: path.map { String(cString: $0) } ?? "",
                                   interface: interface.map { String(cString: $0) } ?? "",
                                   member: member.map { String(cString: $0) } ?? "",
                                   arguments: arguments))
            }, userData, DBusSubscription.Registration.destroy)
        }
        return DBusSubscription(registration)
    }

    /// Watches who owns the bus name `name` (g_bus_watch_name_on_connection): `appeared`
    /// with the owner's unique name when it has one (also at the start), `vanished` when it
    /// has none (also at the start, and when the bus goes away), on the connection's
    /// thread, until the watch is cancelled.
    public func watchName(_ name: String, appeared: @escaping @Sendable (_ owner: String) -> Void,
                          vanished: @escaping @Sendable () -> Void) throws(GLibError) -> DBusSubscription {
        try DBusName.checkBusName(name)
        let registration = DBusSubscription.Registration(core: core, kind: .name(appeared: appeared, vanished: vanished))
        registration.start { connection, userData in
            GIO.loaded.bus_watch_name_on_connection(connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE, { _, _, owner, userData in
                guard let registration = DBusSubscription.Registration.active(userData),
                      case .name(let appeared, _) = registration.kind else { return }
                appeared(owner.map { String(cString: $0) } ?? "")
            }, { _, _, userData in
                guard let registration = DBusSubscription.Registration.active(userData),
                      case .name(_, let vanished) = registration.kind else { return }
                vanished()
            }, userData, DBusSubscription.Registration.destroy)
        }
        return DBusSubscription(registration)
    }
}
