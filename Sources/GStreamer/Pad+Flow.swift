internal import CGStreamer

/// GstFlowReturn, the result of pushing data.
public enum FlowReturn: Int32, Sendable, CustomStringConvertible {
    case ok = 0, notLinked = -1, flushing = -2, eos = -3, notNegotiated = -4, error = -5, notSupported = -6

    init(_ r: GstFlowReturn) { self = FlowReturn(rawValue: r.rawValue) ?? .error }

    /// A result after which the data flow stops (anything but OK and not-linked).
    public var stopsFlow: Bool { self != .ok && self != .notLinked }

    public var description: String { borrowString(gst_flow_get_name(GstFlowReturn(rawValue))) ?? "\(rawValue)" }
}

extension Pad {
    /// gst_pad_get_last_flow_return: what the last push from (or into) this pad returned.
    /// Safe from any thread; a streaming-thread probe can read it to keep one failed
    /// branch from stopping a tee.
    public var lastFlowReturn: FlowReturn { FlowReturn(gst_pad_get_last_flow_return(pad)) }
}
