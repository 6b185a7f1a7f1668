internal import CGStreamer

/// Buffer access for pad probes: read the bytes of the buffer a probe carries,
/// or rewrite them in place before they travel on.
extension ProbeInfo {
    /// Runs `body` over the buffer's bytes (gst_buffer_map, READ). Returns nil when the
    /// probe carries no buffer or it cannot be mapped. The bytes are valid only inside `body`.
    public func withBufferBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard let buffer else { return nil }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        return try body(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// Runs `body` over the buffer's bytes for writing in place.
    ///
    /// The buffer is made writable first (gst_buffer_make_writable, a macro over
    /// gst_mini_object_make_writable): when someone else holds a reference — a muxer that
    /// also put it in its caps' streamheader, a tee — that returns a copy, and the probe's
    /// data is pointed at the copy so the rewritten buffer is the one that travels on.
    /// Mapping for writing copies any memory that is shared. Returns nil when the probe
    /// carries no buffer or it cannot be mapped.
    public func withWritableBufferBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R? {
        guard let buffer else { return nil }
        let writable: UnsafeMutablePointer<GstBuffer> = cast(gst_mini_object_make_writable(cast(buffer)))
        info.pointee.data = UnsafeMutableRawPointer(writable)
        var map = GstMapInfo()
        // GST_MAP_READWRITE is a macro (READ | WRITE).
        let flags = GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)
        guard gst_buffer_map(writable, &map, flags) != 0 else { return nil }
        defer { gst_buffer_unmap(writable, &map) }
        return try body(UnsafeMutableRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// Whether the buffer can be written without a copy (gst_buffer_is_writable).
    public var isBufferWritable: Bool {
        guard let buffer else { return false }
        return gst_mini_object_is_writable(cast(buffer)) != 0
    }
}
