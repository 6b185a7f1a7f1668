internal import CGStreamer
import GLib
internal import CGStreamerShim

/// An owned reference to a GstObject; the base of Element, Bin, Pipeline and Pad.
///
/// Not `final`: Element -> Bin -> Pipeline mirror GStreamer's own class chain.
/// `@unchecked Sendable`: GstObject reference counting and the calls exposed here
/// (properties, names, state) are thread-safe in GStreamer; the wrapper itself
/// holds nothing mutable but the pointer, which never changes.
public class Object: @unchecked Sendable, CustomStringConvertible {
    let raw: UnsafeMutableRawPointer

    /// Adopts a reference. A floating reference (fresh from a factory or the
    /// parser) is sunk; a full reference is taken over; `retain` adds one for a
    /// borrowed (transfer-none) pointer.
    init(raw: UnsafeMutableRawPointer, retain: Bool = false) {
        if retain {
            gst_object_ref(raw)
        } else if g_object_is_floating(raw) != 0 {
            gst_object_ref_sink(raw)
        }
        self.raw = raw
        LiveCounts.objectWrapperCreated()
    }

    deinit {
        gst_object_unref(raw)
        LiveCounts.objectWrapperDestroyed()
    }

    var gstObject: UnsafeMutablePointer<GstObject> { cast(raw) }

    /// GST_OBJECT_NAME
    public var name: String { takeString(gst_object_get_name(gstObject)) ?? "" }

    /// gst_object_get_path_string, e.g. "/GstPipeline:pipeline0/GstFakeSink:sink".
    public var path: String { takeString(gst_object_get_path_string(gstObject)) ?? name }

    /// G_OBJECT_TYPE_NAME
    public var typeName: String { borrowString(g_type_name(plumb_object_type(raw))) ?? "?" }

    /// The GObject reference count; for tests of ownership.
    public var referenceCount: UInt32 {
        raw.assumingMemoryBound(to: GObject.self).pointee.ref_count
    }

    public var description: String { "\(typeName)(\(name))" }

    /// Whether this object is an instance of the named GType (or a subtype).
    public func isA(_ typeName: String) -> Bool {
        let type = g_type_from_name(typeName)
        return type != 0 && g_type_is_a(plumb_object_type(raw), type) != 0
    }
}

