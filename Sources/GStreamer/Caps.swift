internal import CGStreamer
import GLib

/// An owned GstCaps. Treated as immutable once made (caps are shared copy-on-write).
public final class Caps: @unchecked Sendable, CustomStringConvertible, Equatable {
    let pointer: UnsafeMutablePointer<GstCaps>

    init(taking pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }

    init(retaining pointer: UnsafeMutablePointer<GstCaps>) {
        gst_mini_object_ref(cast(pointer))
        self.pointer = pointer
    }

    deinit { gst_mini_object_unref(cast(pointer)) }

    /// gst_caps_from_string: "video/x-raw,width=640,height=480".
    public convenience init(_ string: String) throws(GStreamerError) {
        try Gst.initialize()
        guard let caps = gst_caps_from_string(string) else {
            throw GStreamerError(message: "\"\(string)\" is not valid caps")
        }
        self.init(taking: caps)
    }

    public static var any: Caps { Caps(taking: gst_caps_new_any()) }

    public var description: String { takeString(gst_caps_to_string(pointer)) ?? "" }

    public var isAny: Bool { gst_caps_is_any(pointer) != 0 }
    public var isEmpty: Bool { gst_caps_is_empty(pointer) != 0 }
    public var isFixed: Bool { gst_caps_is_fixed(pointer) != 0 }
    public var count: Int { Int(gst_caps_get_size(pointer)) }

    /// A copy of structure `index`.
    public func structure(at index: Int) -> Structure? {
        guard index < count, let s = gst_caps_get_structure(pointer, guint(index)) else { return nil }
        return Structure(copying: s)
    }

    public var structures: [Structure] { (0..<count).compactMap { structure(at: $0) } }

    public func canIntersect(_ other: Caps) -> Bool { gst_caps_can_intersect(pointer, other.pointer) != 0 }

    public func intersect(_ other: Caps) -> Caps { Caps(taking: gst_caps_intersect(pointer, other.pointer)) }

    public func isSubset(of other: Caps) -> Bool { gst_caps_is_subset(pointer, other.pointer) != 0 }

    public static func == (a: Caps, b: Caps) -> Bool { gst_caps_is_equal(a.pointer, b.pointer) != 0 }
}
