internal import CGStreamer

extension Element {
    /// Posts an ERROR message as if this element had failed (gst_message_new_error +
    /// gst_element_post_message), in the resource domain. Lets a test play a camera
    /// being unplugged without one.
    public func postResourceError(_ message: String, debug: String? = nil) {
        let error = g_error_new_literal(gst_resource_error_quark(), gint(GST_RESOURCE_ERROR_READ.rawValue), message)
        defer { g_error_free(error) }
        if let msg = gst_message_new_error(gstObject, error, debug) {
            _ = gst_element_post_message(element, msg)
        }
    }
}
