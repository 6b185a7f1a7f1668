import GLib

extension Object {
    /// Calls `handler` each time the property `name` changes (the GObject signal
    /// `notify::NAME`), on the thread that changed it: only hand off from there. The
    /// handler lives as long as the object; capture the object's owner weakly.
    public func onChange(of name: String, _ handler: @escaping @Sendable () -> Void) {
        Signal.connect(raw, "notify::\(name)") { (_: UnsafeMutableRawPointer, _: UnsafeMutableRawPointer?) in handler() }
    }
}
