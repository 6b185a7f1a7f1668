internal import CGStreamer
import FoundationEssentials
import Glibc
import GLib

/// Process-wide GStreamer set-up and facts.
public enum Gst {
    private static let once: Result<Void, GStreamerError> = {
        var error: UnsafeMutablePointer<GError>?
        // gst_init_check: GStreamer reads GST_* options from argv; Plumb passes none.
        if gst_init_check(nil, nil, &error) == 0 {
            return .failure(GStreamerError(taking: error, fallback: "gst_init_check failed"))
        }
        // DirectFB's dfbvideosink crashes the process (in libfusion) when it probes a
        // machine without a framebuffer console, and autovideosink probes it: keep it
        // out of automatic selection. It can still be named explicitly.
        if let dfb = gst_registry_find_feature(gst_registry_get(), "dfbvideosink", gst_element_factory_get_type()) {
            gst_plugin_feature_set_rank(dfb, guint(GST_RANK_NONE.rawValue))
            gst_object_unref(UnsafeMutableRawPointer(dfb))
        }
        return .success(())
    }()

    /// gst_init_check, once per process. Every wrapper calls it, so callers rarely need to.
    public static func initialize() throws(GStreamerError) {
        try once.get()
    }

    /// "GStreamer 1.22.0" — gst_version_string.
    public static var versionString: String {
        try? initialize()
        return takeString(gst_version_string()) ?? "GStreamer"
    }

    /// The GStreamer library's version (gst_version): (1, 22, 0) on Debian 12, (1, 26, 2) on Debian 13.
    public static var version: (major: UInt32, minor: UInt32, micro: UInt32) {
        var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
        gst_version(&major, &minor, &micro, &nano)
        return (major, minor, micro)
    }

    /// The factory's klass metadata ("Source/Video", "Sink/Video"), nil if there is no such factory.
    public static func elementClass(_ factory: String) -> String? {
        try? initialize()
        guard let f = gst_element_factory_find(factory) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(f)) }
        return borrowString(gst_element_factory_get_metadata(f, "klass"))
    }

    /// Whether an element factory exists in the registry — gst_element_factory_find.
    public static func hasElement(_ factory: String) -> Bool {
        try? initialize()
        guard let f = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(f))
        return true
    }
}

/// Nanoseconds, as GstClockTime.
public typealias ClockTime = UInt64

extension ClockTime {
    /// GST_SECOND
    public static let second: ClockTime = 1_000_000_000
    /// GST_MSECOND
    public static let millisecond: ClockTime = 1_000_000
    /// GST_CLOCK_TIME_NONE
    public static let none: ClockTime = .max
}

/// Copies a borrowed C string.
func borrowString(_ p: UnsafePointer<gchar>?) -> String? {
    p.map { String(cString: $0) }
}

/// Reinterprets a GObject-family pointer as another struct in its class chain
/// (the C cast macros GST_ELEMENT(), G_OBJECT() ... are plain casts in release builds).
@inline(__always)
package func cast<T>(_ p: UnsafeMutableRawPointer) -> UnsafeMutablePointer<T> {
    p.assumingMemoryBound(to: T.self)
}

@inline(__always)
package func cast<T, U>(_ p: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: T.self)
}
