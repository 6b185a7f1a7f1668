internal import CGStreamer
import FoundationEssentials
import Glibc
import GLib

/// An `appsink` element: where frames leave GStreamer for Swift.
public final class AppSink: Element, @unchecked Sendable {  // as Element: a fixed pointer; appsink's API is thread-safe
    var appSink: UnsafeMutablePointer<GstAppSink> { cast(raw) }

    /// gst_element_factory_make("appsink").
    public convenience init(name: String? = nil) throws(GStreamerError) {
        try Gst.initialize()
        guard let e = gst_element_factory_make("appsink", name) else {
            throw GStreamerError(message: "no element \"appsink\": gst-plugins-base is not installed")
        }
        self.init(raw: UnsafeMutableRawPointer(e))
    }

    /// An appsink that hands `handler` each frame on the streaming thread and never holds
    /// one back: not synced to the clock, at most one buffer queued (a newer one replaces
    /// it), no last-sample copy. For outputs that want the newest frame, not every frame.
    public static func newestFrame(name: String, _ handler: @escaping @Sendable (Sample) -> Void) throws -> AppSink {
        let sink = try AppSink(name: name)
        try sink.set("sync", false)
        try sink.set("max-buffers", 1)
        try sink.set("drop", true)
        try sink.set("enable-last-sample", false)
        sink.onNewSample { sink in
            guard let sample = sink.pull(timeout: .zero) else { return }
            handler(sample)
        }
        return sink
    }

    /// Wraps an element that is an appsink (found in a parsed pipeline); nil otherwise.
    public convenience init?(_ element: Element) {
        guard element.isA("GstAppSink") else { return nil }
        self.init(raw: element.raw, retain: true)
    }

    /// gst_app_sink_try_pull_sample: the next sample, waiting up to `timeout`;
    /// nil at end of stream or when the time is up.
    public func pull(timeout: Duration) -> Sample? {
        gst_app_sink_try_pull_sample(appSink, GstClockTime(timeout.nanoseconds)).map { Sample(taking: $0) }
    }

    /// Whether the sink has received end of stream and nothing is left to pull.
    public var isEOS: Bool { gst_app_sink_is_eos(appSink) != 0 }

    /// gst_app_sink_set_callbacks with a new-sample callback: `handler` runs on the
    /// streaming thread for every sample, which it should pull (`pull(timeout: .zero)`)
    /// and only hand off. Replaces any earlier handler. The callback holds no reference
    /// to the element (it gets a fresh wrapper per call), so no cycle keeps the sink alive.
    public func onNewSample(_ handler: @escaping @Sendable (AppSink) -> Void) {
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { sink, userData in
            guard let sink, let userData else { return GST_FLOW_OK }
            let handler = Unmanaged<Box<@Sendable (AppSink) -> Void>>.fromOpaque(userData).takeUnretainedValue().value
            handler(AppSink(raw: UnsafeMutableRawPointer(sink), retain: true))
            return GST_FLOW_OK
        }
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        gst_app_sink_set_callbacks(appSink, &callbacks, box, { userData in
            if let userData { Unmanaged<Box<@Sendable (AppSink) -> Void>>.fromOpaque(userData).release() }
        })
    }

    /// Removes the new-sample callback (and releases what it captured).
    public func clearCallbacks() {
        var callbacks = GstAppSinkCallbacks()
        gst_app_sink_set_callbacks(appSink, &callbacks, nil, nil)
    }
}
