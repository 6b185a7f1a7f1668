internal import CGStreamer

/// An owned GstSample: a buffer with the caps (and segment) it was produced under,
/// as appsink hands it over.
public final class Sample: @unchecked Sendable {  // immutable once made; refcounting is atomic
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    init(retaining pointer: OpaquePointer) {
        gst_mini_object_ref(UnsafeMutablePointer<GstMiniObject>(pointer))
        self.pointer = pointer
    }

    deinit { gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(pointer)) }

    /// gst_sample_get_buffer.
    public var buffer: Buffer? { gst_sample_get_buffer(pointer).map { Buffer(retaining: $0) } }

    /// gst_sample_get_caps.
    public var caps: Caps? { gst_sample_get_caps(pointer).map { Caps(retaining: $0) } }

    /// Width and height from raw or encoded video caps.
    public var videoSize: (width: Int, height: Int)? {
        guard let s = caps?.structure(at: 0), let w = s.int("width"), let h = s.int("height") else { return nil }
        return (w, h)
    }
}
