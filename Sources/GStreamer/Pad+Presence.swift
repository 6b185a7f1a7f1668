internal import CGStreamer

extension Pad {
    /// GstPadPresence: whether an element always has the pad, or makes it when it
    /// sees data (sometimes) or when asked (request).
    public enum Presence: Sendable {
        case always, sometimes, request
    }

    /// The presence of the template the pad was made from (GST_PAD_TEMPLATE_PRESENCE);
    /// nil for a pad made without a template, as most ghost pads are.
    public var presence: Presence? {
        guard let template = gst_pad_get_pad_template(pad) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(template)) }
        switch template.pointee.presence {
        case GST_PAD_ALWAYS: return .always
        case GST_PAD_SOMETIMES: return .sometimes
        default: return .request
        }
    }

    /// gst_pad_is_linked.
    public var isLinked: Bool { gst_pad_is_linked(pad) != 0 }
}
