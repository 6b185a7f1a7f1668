internal import CGStreamer

extension Buffer {
    /// A new buffer sharing this one's memory (gst_buffer_copy: metadata copied, memory
    /// referenced, not duplicated) with other timestamps — nil clears one. For handing an
    /// encoded frame to another pipeline, whose clock and base time are its own.
    public func retimed(pts: ClockTime?, dts: ClockTime?) -> Buffer {
        // gst_buffer_copy is a static inline over gst_mini_object_copy.
        let copy: UnsafeMutablePointer<GstBuffer> = cast(gst_mini_object_copy(cast(pointer))!)
        copy.pointee.pts = GstClockTime(pts ?? ClockTime.none)
        copy.pointee.dts = GstClockTime(dts ?? ClockTime.none)
        return Buffer(taking: copy)
    }
}

extension Sample {
    /// gst_sample_new: a buffer with the caps it is to be read with (no segment, no info).
    public convenience init(buffer: Buffer, caps: Caps?) {
        self.init(taking: gst_sample_new(buffer.pointer, caps?.pointer, nil, nil))
    }
}
