internal import CGStreamer

extension Pad {
    /// The running time of a timestamp in the segment this pad last carried
    /// (gst_pad_get_sticky_event + gst_segment_to_running_time): the pipeline-clock
    /// time a buffer belongs to, whatever offset an element put on its timestamps
    /// (x264enc adds 1000 hours). nil without a TIME segment or outside it.
    public func runningTime(of timestamp: ClockTime) -> ClockTime? {
        Pad.runningTime(of: timestamp, on: pad)
    }

    static func runningTime(of timestamp: ClockTime, on pad: UnsafeMutablePointer<GstPad>) -> ClockTime? {
        guard let event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) else { return nil }
        defer { gst_mini_object_unref(cast(event)) }
        var segment: UnsafePointer<GstSegment>?
        gst_event_parse_segment(event, &segment)
        guard let segment, segment.pointee.format == GST_FORMAT_TIME else { return nil }
        let t = gst_segment_to_running_time(segment, GST_FORMAT_TIME, guint64(timestamp))
        return t == ClockTime.none ? nil : ClockTime(t)
    }
}
