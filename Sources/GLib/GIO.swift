internal import CGioShim

/// GIO's D-Bus functions (`PlumbGio`, CGioShim), loaded with libgio when D-Bus is first used
/// instead of linked: a process that never speaks D-Bus does not load GIO (issue 26).
enum GIO {
    /// The functions; loads libgio the first time.
    static func load() throws(GLibError) -> PlumbGio {
        var error: UnsafePointer<CChar>?
        guard let gio = plumb_gio_load(&error) else {
            throw GLibError(domain: "plumb-error-quark", code: 0,
                            message: error.map { String(cString: $0) } ?? "cannot load GIO for D-Bus")
        }
        return gio.pointee
    }

    /// The functions, for code that runs only once a connection exists (which loaded them).
    static var loaded: PlumbGio { ifLoaded! }

    /// The functions if something has loaded them already (a GError can be a D-Bus one only then).
    static var ifLoaded: PlumbGio? { plumb_gio_loaded()?.pointee }
}
