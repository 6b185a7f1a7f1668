internal import CGStreamer

extension ProbeInfo {
    /// Restamps the probe's buffer before it travels on: made writable first (a copy when
    /// someone else holds a reference, with the probe's data pointed at the copy, as in
    /// `withWritableBufferBytes`), then GST_BUFFER_PTS and GST_BUFFER_DTS set. Only the
    /// metadata changes; the memory stays shared. Does nothing without a buffer.
    public func retimeBuffer(pts: ClockTime?, dts: ClockTime?) {
        guard let buffer else { return }
        let writable: UnsafeMutablePointer<GstBuffer> = cast(gst_mini_object_make_writable(cast(buffer)))
        info.pointee.data = UnsafeMutableRawPointer(writable)
        writable.pointee.pts = GstClockTime(pts ?? ClockTime.none)
        writable.pointee.dts = GstClockTime(dts ?? ClockTime.none)
    }
}

extension ProbedPad {
    /// The running time now of the element the pad belongs to (`Element.runningTime`:
    /// its clock's time minus its base time); nil when it has no parent or no clock yet.
    public var elementRunningTime: ClockTime? {
        guard let parent = gst_pad_get_parent_element(pad) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(parent)) }
        guard let clock = gst_element_get_clock(parent) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = gst_clock_get_time(clock)
        let base = gst_element_get_base_time(parent)
        return ClockTime(now >= base ? now - base : 0)
    }
}
