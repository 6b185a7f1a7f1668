internal import CGStreamer
internal import CGStreamerShim
import Foundation

/// A bus watch (gst_bus_create_watch) attached to a MainContext: each message is
/// converted to a `BusMessage` on the thread iterating that context.
///
/// `@unchecked Sendable`: the only mutable state, `source`, is guarded by `lock`.
final class BusWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var source: UnsafeMutablePointer<GSource>?

    init(pipeline: Pipeline, context: MainContext, handler: @escaping @Sendable (BusMessage) -> Void) {
        let bus = gst_element_get_bus(pipeline.element)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        Diagnostics.busWatchAttached()
        source = plumb_bus_watch_attach(bus, context.pointer, { _, message, userData in
            guard let message, let userData else { return 1 }
            let handler = Unmanaged<Box<@Sendable (BusMessage) -> Void>>.fromOpaque(userData).takeUnretainedValue()
            handler.value(Message(retaining: message).typed)
            return 1  // G_SOURCE_CONTINUE
        }, box, { userData in
            // GLib drops the callback data when the source is destroyed (or its context freed).
            if let userData { Unmanaged<Box<@Sendable (BusMessage) -> Void>>.fromOpaque(userData).release() }
            Diagnostics.busWatchDetached()
        })
        if source == nil {  // only a bus made without async delivery has no watch source
            Unmanaged<Box<@Sendable (BusMessage) -> Void>>.fromOpaque(box).release()
            Diagnostics.busWatchDetached()
        }
    }

    /// Removes the watch; GLib releases the handler (synchronously, unless it is dispatching right now).
    func cancel() {
        let s: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let s else { return }
        g_source_destroy(s)
        g_source_unref(s)
    }

    deinit { cancel() }
}
