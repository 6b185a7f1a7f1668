internal import CGStreamer
internal import CGStreamerShim
import GLib

/// A bus watch (gst_bus_create_watch) attached to a MainContext: each message is
/// handed over on the thread iterating that context. The one mechanism under
/// `messages(on:)` (an AsyncStream of `BusMessage`), `watchBus(on:_:)` (typed, no hop)
/// and `watchMessages(on:_:)` (the `Message` itself, for details `BusMessage` does not
/// carry, such as rtspclientsink's progress). A bus has one watch: use one of them.
public final class MessageWatch: Sendable {
    private let source: AttachedSource

    init(pipeline: Pipeline, context: MainContext, handler: @escaping @Sendable (Message) -> Void) {
        let bus = gst_element_get_bus(pipeline.element)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        LiveCounts.busWatchAttached()
        let s = plumb_bus_watch_attach(bus, context.pointer, { _, message, userData in
            guard let message, let userData else { return 1 }
            Unmanaged<Box<@Sendable (Message) -> Void>>.fromOpaque(userData).takeUnretainedValue()
                .value(Message(retaining: message))
            return 1  // G_SOURCE_CONTINUE
        }, box, { userData in
            if let userData { Unmanaged<Box<@Sendable (Message) -> Void>>.fromOpaque(userData).release() }
            LiveCounts.busWatchDetached()
        })
        if s == nil {  // only a bus made without async delivery has no watch source
            Unmanaged<Box<@Sendable (Message) -> Void>>.fromOpaque(box).release()
            LiveCounts.busWatchDetached()
        }
        source = AttachedSource(raw: s)
    }

    /// Removes the watch. Idempotent; also done when the watch is released.
    public func cancel() { source.destroy() }
}

extension Pipeline {
    /// Attaches a bus watch to `context`; `handler` gets each message, in order, on
    /// the thread iterating that context.
    public func watchMessages(on context: MainContext, _ handler: @escaping @Sendable (Message) -> Void)
        -> MessageWatch
    {
        MessageWatch(pipeline: self, context: context, handler: handler)
    }
}
