internal import CGStreamer

extension Element {
    /// Posts a WARNING message from this element on its pipeline's bus
    /// (gst_message_new_warning + gst_element_post_message), in the Plumb error
    /// domain: how Plumb code reports a problem that does not stop the pipeline,
    /// in order with GStreamer's own messages.
    public func postWarning(_ message: String, code: GStreamerError.OwnCode = .other, debug: String? = nil) {
        let error = g_error_new_literal(g_quark_from_string(GStreamerError.ownDomain), gint(code.rawValue), message)
        defer { g_error_free(error) }
        let posted = gst_message_new_warning(gstObject, error, debug)  // copies the error and the text
        gst_element_post_message(element, posted)
    }
}
