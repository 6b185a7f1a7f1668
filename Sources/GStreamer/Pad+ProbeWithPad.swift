internal import CGStreamer

extension Pad {
    /// Like `addProbe(_:_:)`, but the callback also gets the pad (a fresh wrapper per
    /// call), so it need not capture the pad — a probe that captured its own pad would
    /// keep it alive forever.
    @discardableResult
    public func addProbe(_ kinds: ProbeKinds, _ callback: @escaping @Sendable (Pad, ProbeInfo) -> ProbeResult) -> UInt {
        let box = Unmanaged.passRetained(Box(callback)).toOpaque()
        return UInt(gst_pad_add_probe(pad, GstPadProbeType(rawValue: kinds.rawValue), { pad, info, userData in
            guard let pad, let info, let userData else { return GST_PAD_PROBE_OK }
            let callback = Unmanaged<Box<@Sendable (Pad, ProbeInfo) -> ProbeResult>>.fromOpaque(userData)
                .takeUnretainedValue().value
            return callback(Pad(raw: UnsafeMutableRawPointer(pad), retain: true), ProbeInfo(info)).gst
        }, box, { userData in
            if let userData { Unmanaged<Box<@Sendable (Pad, ProbeInfo) -> ProbeResult>>.fromOpaque(userData).release() }
        }))
    }
}
