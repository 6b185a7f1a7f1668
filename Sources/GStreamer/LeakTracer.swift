internal import CGStreamer
internal import CGStreamerShim
import FoundationEssentials
import Glibc

/// GStreamer's `leaks` tracer, when `GST_TRACERS` named it at gst_init: every
/// GstObject and GstMiniObject (buffers, caps, events, messages ...) alive now.
///
/// Tracers are read once per process, when GStreamer initializes; a process that
/// started without `GST_TRACERS=leaks` never has one.
public enum LeakTracer {
    /// One live object: its GType name ("GstFakeSink", "GstCaps") and reference count.
    public struct LiveObject: Sendable, Hashable {
        public var typeName: String
        public var referenceCount: UInt32
    }

    /// Whether the leaks tracer is active in this process.
    public static var isActive: Bool {
        guard (try? Gst.initialize()) != nil else { return false }
        let tracers = gst_tracing_get_active_tracers()
        defer { g_list_free_full(tracers) { gst_object_unref($0) } }
        var node = tracers
        while let n = node {
            if let name = borrowString(g_type_name(plumb_object_type(n.pointee.data))), name.hasPrefix("GstLeaksTracer") {
                return true
            }
            node = n.pointee.next
        }
        return false
    }

    /// Every object the tracer sees alive, or nil without the tracer.
    /// Take it while nothing streams (the tracer's own walk is not safe against
    /// objects being released at the same moment).
    public static func liveObjects() -> [LiveObject]? {
        guard (try? Gst.initialize()) != nil, let info = plumb_leaks_tracer_live_objects() else { return nil }
        defer { gst_structure_free(info) }
        guard let list = gst_structure_get_value(info, "live-objects-list") else { return [] }
        return (0..<gst_value_list_get_size(list)).compactMap { i -> LiveObject? in
            guard let entry = gst_value_list_get_value(list, i), let s = gst_value_get_structure(entry),
                  let object = gst_structure_get_value(s, "object")
            else { return nil }
            var count: guint = 0
            gst_structure_get_uint(s, "ref-count", &count)
            return LiveObject(typeName: gtypeName(object.pointee.g_type), referenceCount: count)
        }
    }

    /// Live objects counted by type name, or nil without the tracer.
    public static func liveCounts() -> [String: Int]? {
        liveObjects().map { Dictionary($0.map { ($0.typeName, 1) }, uniquingKeysWith: +) }
    }
}
