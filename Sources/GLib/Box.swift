/// A reference box for handing Swift values (the `@Sendable` closures C callbacks
/// run, on whichever thread GLib calls them) through C `void *user_data`.
package final class Box<T: Sendable>: Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}
