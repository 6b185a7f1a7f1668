internal import CGStreamer

extension Pad {
    /// Like `addProbe(_:_:)`, but the callback also gets the pad it fires on, borrowed
    /// for the call, so it need not capture the pad (a probe that captured its own pad
    /// would keep it alive forever) and no wrapper or reference is made per buffer.
    @discardableResult
    public func addProbe(_ kinds: ProbeKinds, _ callback: @escaping @Sendable (ProbedPad, ProbeInfo) -> ProbeResult)
        -> UInt
    {
        addRawProbe(kinds) { pad, info in callback(ProbedPad(pad: pad), ProbeInfo(info)).gst }
    }
}

/// The pad a probe fires on, valid only during the callback (like `ProbeInfo`).
public struct ProbedPad {
    let pad: UnsafeMutablePointer<GstPad>

    /// The negotiated caps, nil before negotiation.
    public var currentCaps: Caps? { Pad.currentCaps(of: pad) }

    /// A timestamp as running time, from the pad's segment (see `Pad.runningTime(of:)`).
    public func runningTime(of timestamp: ClockTime) -> ClockTime? { Pad.runningTime(of: timestamp, on: pad) }

    /// gst_pad_push_event out of the pad, from its own streaming thread (e.g. a tag before
    /// the buffer the probe holds).
    @discardableResult
    public func push(_ event: Event) -> Bool { gst_pad_push_event(pad, event.make()) != 0 }
}
