internal import CGStreamer
import GLib
internal import CGStreamerShim
import FoundationEssentials
import Glibc

/// A GstTagList as a value: the metadata muxers write (EXIF through jifmux, MP4 tags).
/// Copies share one list until one of them is changed (copy on write), so a list handed
/// to another thread never changes under it.
public struct TagList: Sendable, CustomStringConvertible {
    /// The owned list. `@unchecked Sendable`: never changed once it can be shared — a
    /// setter writes only into a storage it holds alone (`isKnownUniquelyReferenced`).
    private final class Storage: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<GstTagList>
        init(taking pointer: UnsafeMutablePointer<GstTagList>) { self.pointer = pointer }
        deinit { gst_mini_object_unref(cast(pointer)) }
    }

    private var storage: Storage
    var pointer: UnsafeMutablePointer<GstTagList> { storage.pointer }

    public init() {
        try? Gst.initialize()
        storage = Storage(taking: gst_tag_list_new_empty())
    }

    init(retaining pointer: UnsafeMutablePointer<GstTagList>) {
        gst_mini_object_ref(cast(pointer))
        storage = Storage(taking: pointer)
    }

    /// gst_tag_list_new_from_string: "taglist, title=(string)x". The prefix is checked
    /// here because GStreamer only asserts it (a GLib critical, then NULL).
    public init(_ string: String) throws(GStreamerError) {
        try Gst.initialize()
        guard string.hasPrefix("taglist"), let list = gst_tag_list_new_from_string(string) else {
            throw GStreamerError(message: "\"\(string)\" is not a valid tag list")
        }
        storage = Storage(taking: list)
    }

    public var description: String { takeString(gst_tag_list_to_string(pointer)) ?? "" }
    public var isEmpty: Bool { gst_tag_list_is_empty(pointer) != 0 }

    // Well-known tag names (GST_TAG_* are string macros).
    public static let title = "title"
    public static let comment = "comment"
    public static let deviceManufacturer = "device-manufacturer"
    public static let deviceModel = "device-model"
    public static let dateTime = "datetime"
    public static let imageOrientation = "image-orientation"
    public static let geoLatitude = "geo-location-latitude"
    public static let geoLongitude = "geo-location-longitude"
    public static let geoElevation = "geo-location-elevation"
    public static let applicationName = "application-name"

    /// Replaces `tag` with a string value. An unknown tag or a tag of another type is an error.
    public mutating func set(_ tag: String, _ value: String) throws(GStreamerError) {
        try set(tag, type: "gchararray") { g_value_init(&$0, g_type_from_name("gchararray")); g_value_set_string(&$0, value) }
    }

    public mutating func set(_ tag: String, _ value: Double) throws(GStreamerError) {
        try set(tag, type: "gdouble") { g_value_init(&$0, g_type_from_name("gdouble")); g_value_set_double(&$0, value) }
    }

    public mutating func set(_ tag: String, _ value: UInt32) throws(GStreamerError) {
        try set(tag, type: "guint") { g_value_init(&$0, g_type_from_name("guint")); g_value_set_uint(&$0, value) }
    }

    /// A GstDateTime tag ("datetime") in UTC.
    public mutating func set(_ tag: String, _ date: Date) throws(GStreamerError) {
        try set(tag, date, timeZone: .gmt)
    }

    /// Checks that `tag` exists and holds `type`, makes the list writable and
    /// replaces the tag with the value `fill` initializes.
    mutating func set(_ tag: String, type: String, _ fill: (inout GValue) -> Void) throws(GStreamerError) {
        guard gst_tag_exists(tag) != 0 else {
            throw GStreamerError(code: GStreamerError.OwnCode.unknownTag.rawValue,
                                 message: "unknown tag \"\(tag)\": GStreamer has no tag of that name")
        }
        let expected = gst_tag_get_type(tag)
        guard g_type_from_name(type) == expected else {
            throw GStreamerError(code: GStreamerError.OwnCode.tagTypeMismatch.rawValue,
                                 message: "tag \"\(tag)\" holds \(gtypeName(expected)), not \(type)")
        }
        var value = GValue()
        fill(&value)
        defer { g_value_unset(&value) }
        makeUnique()
        gst_tag_list_add_value(pointer, GST_TAG_MERGE_REPLACE, tag, &value)
    }

    /// Gives this value a list of its own before a change: a copy when another TagList
    /// shares the storage, or when GStreamer holds another reference (the list is not
    /// writable: gst_tag_list_make_writable's test).
    private mutating func makeUnique() {
        guard !isKnownUniquelyReferenced(&storage) || gst_mini_object_is_writable(cast(pointer)) == 0 else { return }
        storage = Storage(taking: gst_tag_list_copy(pointer))
    }

    /// The tag's value, nil when absent or when the tag holds another type
    /// (checked first: GLib's getters would log a critical and answer 0).
    public func string(_ tag: String) -> String? {
        guard holds(tag, g_type_from_name("gchararray")) else { return nil }
        var out: UnsafeMutablePointer<gchar>?
        return gst_tag_list_get_string(pointer, tag, &out) != 0 ? takeString(out) : nil
    }

    public func double(_ tag: String) -> Double? {
        guard holds(tag, g_type_from_name("gdouble")) else { return nil }
        var v: gdouble = 0
        return gst_tag_list_get_double(pointer, tag, &v) != 0 ? v : nil
    }

    public func uint(_ tag: String) -> UInt32? {
        guard holds(tag, g_type_from_name("guint")) else { return nil }
        var v: guint = 0
        return gst_tag_list_get_uint(pointer, tag, &v) != 0 ? v : nil
    }

    private func holds(_ tag: String, _ type: GType) -> Bool {
        gst_tag_exists(tag) != 0 && gst_tag_get_type(tag) == type
    }

    /// A GstDateTime tag as a Date (UTC offsets applied); nil when absent or
    /// when it lacks a time of day.
    public func date(_ tag: String) -> Date? {
        guard holds(tag, gst_date_time_get_type()) else { return nil }
        var out: OpaquePointer?
        guard gst_tag_list_get_date_time(pointer, tag, &out) != 0, let dt = out else { return nil }
        defer { gst_date_time_unref(dt) }
        guard gst_date_time_has_time(dt) != 0, let g = gst_date_time_to_g_date_time(dt) else { return nil }
        defer { g_date_time_unref(g) }
        return Date(timeIntervalSince1970: Double(g_date_time_to_unix(g)) + Double(g_date_time_get_microsecond(g)) / 1e6)
    }

    /// Sets this list on an element implementing GstTagSetter (jifmux, mp4mux).
    public func apply(to element: Element, mode: MergeMode = .replace) throws(GStreamerError) {
        guard g_type_is_a(plumb_object_type(element.raw), gst_tag_setter_get_type()) != 0 else {
            throw GStreamerError(message: "\(element.name) does not accept tags (not a GstTagSetter)")
        }
        gst_tag_setter_merge_tags(OpaquePointer(element.raw), pointer, mode.gst)
    }

    public enum MergeMode: Sendable {
        case replace, keep
        var gst: GstTagMergeMode { self == .replace ? GST_TAG_MERGE_REPLACE : GST_TAG_MERGE_KEEP }
    }
}
