internal import CGStreamer

/// An `appsrc` element: where Swift hands buffers to a pipeline.
public final class AppSrc: Element, @unchecked Sendable {  // as Element: a fixed pointer; appsrc's API is thread-safe
    var appSrc: UnsafeMutablePointer<GstAppSrc> { cast(raw) }

    /// gst_element_factory_make("appsrc").
    public convenience init(name: String? = nil) throws(GStreamerError) {
        try Gst.initialize()
        guard let e = gst_element_factory_make("appsrc", name) else {
            throw GStreamerError(message: "no element \"appsrc\": gst-plugins-base is not installed")
        }
        self.init(raw: UnsafeMutableRawPointer(e))
    }

    /// Wraps an element that is an appsrc (found in a parsed pipeline); nil otherwise.
    public convenience init?(_ element: Element) {
        guard element.isA("GstAppSrc") else { return nil }
        self.init(raw: element.raw, retain: true)
    }

    /// gst_app_src_push_sample: the sample's caps become the source's caps, then its buffer is pushed.
    public func push(_ sample: Sample) throws(GStreamerError) {
        try check(gst_app_src_push_sample(appSrc, sample.pointer), what: "push a sample")
    }

    /// gst_app_src_push_buffer (the pipeline takes its own reference).
    public func push(_ buffer: Buffer) throws(GStreamerError) {
        gst_mini_object_ref(cast(buffer.pointer))
        try check(gst_app_src_push_buffer(appSrc, buffer.pointer), what: "push a buffer")
    }

    /// gst_app_src_end_of_stream.
    public func endOfStream() throws(GStreamerError) {
        try check(gst_app_src_end_of_stream(appSrc), what: "end the stream")
    }

    private func check(_ flow: GstFlowReturn, what: String) throws(GStreamerError) {
        guard flow == GST_FLOW_OK else {
            let reason = borrowString(gst_flow_get_name(flow)) ?? "error"
            // The stream domain with the (negative) GstFlowReturn as the code: `flowReturn` reads it.
            throw GStreamerError(domain: GStreamerError.streamDomain, code: Int(flow.rawValue),
                                 message: "\(name) could not \(what): \(reason)", source: path)
        }
    }
}
