internal import CGStreamer
import GLib
internal import CGStreamerShim

/// An owned copy of a GstStructure (caps entries, element messages, device properties).
public final class Structure: @unchecked Sendable, CustomStringConvertible {  // never mutated after creation
    let pointer: UnsafeMutablePointer<GstStructure>

    init(copying pointer: UnsafePointer<GstStructure>) { self.pointer = gst_structure_copy(pointer) }
    init(taking pointer: UnsafeMutablePointer<GstStructure>) { self.pointer = pointer }

    deinit { gst_structure_free(pointer) }

    /// gst_structure_from_string: "name, field=(int)3".
    public convenience init(_ string: String) throws(GStreamerError) {
        try Gst.initialize()
        guard let s = gst_structure_from_string(string, nil) else {
            throw GStreamerError(message: "\"\(string)\" is not a valid structure")
        }
        self.init(taking: s)
    }

    public var name: String { borrowString(gst_structure_get_name(pointer)) ?? "" }
    public var description: String { takeString(gst_structure_to_string(pointer)) ?? "" }

    public var fieldNames: [String] {
        (0..<gst_structure_n_fields(pointer)).compactMap { borrowString(gst_structure_nth_field_name(pointer, guint($0))) }
    }

    public func has(_ field: String) -> Bool { gst_structure_has_field(pointer, field) != 0 }

    public func int(_ field: String) -> Int? {
        var v: gint = 0
        if gst_structure_get_int(pointer, field, &v) != 0 { return Int(v) }
        var u: guint = 0
        if gst_structure_get_uint(pointer, field, &u) != 0 { return Int(u) }
        var i64: gint64 = 0
        if gst_structure_get_int64(pointer, field, &i64) != 0 { return Int(i64) }
        var u64: guint64 = 0
        if gst_structure_get_uint64(pointer, field, &u64) != 0 { return Int(exactly: u64) }
        return nil
    }

    public func double(_ field: String) -> Double? {
        var v: gdouble = 0
        return gst_structure_get_double(pointer, field, &v) != 0 ? v : nil
    }

    public func bool(_ field: String) -> Bool? {
        var v: gboolean = 0
        return gst_structure_get_boolean(pointer, field, &v) != 0 ? v != 0 : nil
    }

    public func string(_ field: String) -> String? {
        borrowString(gst_structure_get_string(pointer, field))
    }

    /// A fraction field as (numerator, denominator).
    public func fraction(_ field: String) -> (Int, Int)? {
        var n: gint = 0, d: gint = 0
        return gst_structure_get_fraction(pointer, field, &n, &d) != 0 ? (Int(n), Int(d)) : nil
    }

    /// Any field in its serialized text form ("{ 1, 2 }", "[ 1, 30 ]", "30/1").
    public func serialized(_ field: String) -> String? {
        guard let v = gst_structure_get_value(pointer, field) else { return nil }
        return takeString(gst_value_serialize(v))
    }

    /// The values of a field: a list is expanded; a single value gives one element;
    /// a range gives its text form. Each as its serialized text.
    public func values(_ field: String) -> [String] {
        guard let v = gst_structure_get_value(pointer, field) else { return [] }
        if gst_value_list_get_type() == v.pointee.g_type {
            return (0..<gst_value_list_get_size(v)).compactMap { i in
                gst_value_list_get_value(v, i).flatMap { takeString(gst_value_serialize($0)) }
            }
        }
        return takeString(gst_value_serialize(v)).map { [$0] } ?? []
    }
}
