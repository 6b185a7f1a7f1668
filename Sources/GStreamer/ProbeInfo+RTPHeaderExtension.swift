internal import CGStreamer
internal import CGStreamerShim

extension ProbeInfo {
    /// Adds an RTP header extension in the one-byte form (RFC 8285) — element `id` (1 to 14)
    /// holding `byte` — to the RTP packet or packet list the probe carries, unless a packet
    /// holds that id already; copies first where the buffers are shared. For a URI GStreamer
    /// has no `GstRTPHeaderExtension` for. The C side is `plumb_rtp_probe_add_onebyte_extension`.
    public func addRTPHeaderExtension(id: UInt8, byte: UInt8) {
        precondition((1...14).contains(id), "a one-byte RTP header extension's id is 1 to 14, not \(id)")
        plumb_rtp_probe_add_onebyte_extension(info, id, byte)
    }
}
