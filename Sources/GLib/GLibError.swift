internal import CGio

/// A GError, copied into Swift (GLib's own failures: key files, D-Bus calls).
public struct GLibError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The GError domain's quark string, e.g. "g-key-file-error-quark".
    public var domain: String
    public var code: Int
    public var message: String
    /// For an error a D-Bus peer replied with, its D-Bus name
    /// ("org.freedesktop.DBus.Error.UnknownMethod"; g_dbus_error_get_remote_error);
    /// `message` is then the peer's text, without GDBus's "GDBus.Error:NAME: " prefix.
    public var dbusName: String?

    public init(domain: String, code: Int, message: String, dbusName: String? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.dbusName = dbusName
    }

    /// Takes ownership of a GError (frees it); `fallback` when GLib set none.
    init(taking error: UnsafeMutablePointer<GError>?, fallback: String) {
        guard let error else {
            self.init(domain: "plumb-error-quark", code: 0, message: fallback)
            return
        }
        defer { g_error_free(error) }
        let gio = GIO.ifLoaded
        let dbusName = gio.flatMap { takeString($0.dbus_error_get_remote_error(error)) }
        if dbusName != nil { _ = gio?.dbus_error_strip_remote_error(error) }
        self.init(domain: g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown",
                  code: Int(error.pointee.code),
                  message: error.pointee.message.map { String(cString: $0) } ?? fallback,
                  dbusName: dbusName)
    }

    public var description: String { dbusName.map { "\($0): \(message)" } ?? message }

    /// The quark string of GIOErrorEnum, the domain of GDBus's local failures (a closed
    /// connection, a timeout, a reply of the wrong type) and of the D-Bus client's own
    /// refusals (an argument GLib would not accept).
    public static let ioErrorDomain = "g-io-error-quark"

    /// GIOErrorEnum codes (`code` in `ioErrorDomain`) the D-Bus client reports.
    public enum IOErrorCode {
        /// An argument that cannot be sent, or a reply of another type than expected.
        public static let invalidArgument = Int(G_IO_ERROR_INVALID_ARGUMENT.rawValue)
        /// The connection is closed (or was closed while the call was in flight).
        public static let closed = Int(G_IO_ERROR_CLOSED.rawValue)
        /// No reply within the call's timeout.
        public static let timedOut = Int(G_IO_ERROR_TIMED_OUT.rawValue)
    }

    /// Whether this is the GIOErrorEnum `code`.
    public func isIOError(_ code: Int) -> Bool { domain == Self.ioErrorDomain && self.code == code }

    /// A request refused before it reaches GLib, which would reject it with a critical.
    static func invalidArgument(_ message: String) -> GLibError {
        GLibError(domain: ioErrorDomain, code: IOErrorCode.invalidArgument, message: message)
    }
}

/// Copies a C string GLib handed over with transfer-full and frees it (g_free).
package func takeString(_ p: UnsafeMutablePointer<CChar>?) -> String? {
    guard let p else { return nil }
    defer { g_free(p) }
    return String(cString: p)
}
