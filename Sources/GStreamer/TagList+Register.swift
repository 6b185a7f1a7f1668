internal import CGStreamer
import GLib

extension TagList {
    /// gst_tag_register for a double-valued tag that a library registers only once it is
    /// first used (libgsttag's `capturing-*` tags): registering it first, with the same
    /// name and type, lets a list carry it before then; a later registration is a no-op.
    public static func registerDouble(_ name: String, nick: String, blurb: String) throws(GStreamerError) {
        try Gst.initialize()
        if gst_tag_exists(name) != 0 { return }
        gst_tag_register(name, GST_TAG_FLAG_META, g_type_from_name("gdouble"), nick, blurb, gst_tag_merge_use_first)
    }
}
