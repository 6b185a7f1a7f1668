internal import CGStreamer

extension Pad {
    /// gst_pad_set_offset: added to the running time of everything passing this pad,
    /// e.g. to make a branch that joins a running pipeline start at zero.
    public func setOffset(_ nanoseconds: Int64) {
        gst_pad_set_offset(pad, gint64(nanoseconds))
    }

    /// gst_pad_get_offset.
    public var offset: Int64 { Int64(gst_pad_get_offset(pad)) }
}
