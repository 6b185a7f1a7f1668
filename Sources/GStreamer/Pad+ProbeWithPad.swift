internal import CGStreamer

extension Pad {
    /// Like `addProbe(_:_:)`, but the callback also gets the pad (a fresh wrapper per
    /// call), so it need not capture the pad — a probe that captured its own pad would
    /// keep it alive forever.
    @discardableResult
    public func addProbe(_ kinds: ProbeKinds, _ callback: @escaping @Sendable (Pad, ProbeInfo) -> ProbeResult) -> UInt {
        addRawProbe(kinds) { pad, info in
            callback(Pad(raw: UnsafeMutableRawPointer(pad), retain: true), ProbeInfo(info)).gst
        }
    }
}
