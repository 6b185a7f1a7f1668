internal import CGStreamer

extension ProbeInfo {
    /// The address of the buffer the probe carries: equal on an element's sink and source
    /// pads when the element passed the very buffer through (a transform in passthrough),
    /// different when it made a new one (a copy). nil without a buffer.
    public var bufferIdentity: UInt? {
        buffer.map { UInt(bitPattern: $0) }
    }
}

extension ProbeInfo {
    /// The buffer the probe carries, referenced (not copied) so it outlives the probe.
    public var retainedBuffer: Buffer? {
        buffer.map { Buffer(retaining: $0) }
    }
}
