import FoundationEssentials
import Glibc
import GLib

/// A bus watch whose messages go straight to a handler on the thread that iterates
/// the MainContext — for an owner that *is* that thread (the capture session's
/// executor) and wants no extra hop through an AsyncStream.
public final class BusSubscription: Sendable {
    private let watch: MessageWatch

    init(_ watch: MessageWatch) { self.watch = watch }

    /// Removes the watch. Idempotent; also done when the subscription is released.
    public func cancel() { watch.cancel() }
}

extension Pipeline {
    /// Attaches a bus watch to `context`; `handler` gets each message, in order, on
    /// the thread iterating that context. A bus has one watch: use this or
    /// `messages(on:)`, not both.
    public func watchBus(on context: MainContext, _ handler: @escaping @Sendable (BusMessage) -> Void)
        -> BusSubscription
    {
        BusSubscription(MessageWatch(pipeline: self, context: context) { handler($0.typed) })
    }
}
