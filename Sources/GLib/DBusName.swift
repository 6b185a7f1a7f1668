internal import CGio

/// Checks of the names a D-Bus message carries, before GDBus sees them: it meets a bad
/// one with a critical and no callback at all, not an error.
enum DBusName {
    /// A well-known ("net.hadess.SensorProxy") or unique (":1.42") bus name (g_dbus_is_name).
    static func checkBusName(_ name: String) throws(GLibError) {
        let gio = try GIO.load()
        try check(name, "bus name") { gio.dbus_is_name($0) }
    }

    /// g_variant_is_object_path
    static func checkPath(_ path: String) throws(GLibError) {
        try check(path, "object path") { g_variant_is_object_path($0) }
    }

    /// g_dbus_is_interface_name
    static func checkInterface(_ interface: String) throws(GLibError) {
        let gio = try GIO.load()
        try check(interface, "interface name") { gio.dbus_is_interface_name($0) }
    }

    /// A method or signal name (g_dbus_is_member_name).
    static func checkMember(_ member: String) throws(GLibError) {
        let gio = try GIO.load()
        try check(member, "member name") { gio.dbus_is_member_name($0) }
    }

    private static func check(_ name: String, _ what: String, _ isValid: (String) -> gboolean) throws(GLibError) {
        // A NUL would end the C string early, and the check would pass on what comes before it.
        guard !name.utf8.contains(0), isValid(name) != 0 else {
            throw .invalidArgument("\(name.debugDescription) is not a D-Bus \(what)")
        }
    }
}
