internal import CGStreamer
internal import CGStreamerShim

extension Element {
    /// Answers an SDP offer on this playing `webrtcbin`, sending `codec` (application/x-rtp
    /// caps, set as its transceivers' codec preferences: before the first frame its pads'
    /// caps are not fixed and webrtcbin would find no codec to answer with), and waits up
    /// to `gatheringTimeout` for ICE gathering to complete, so the answer carries its
    /// candidates: a peer that does not trickle needs nothing more. Blocks: call it off any
    /// streaming or main-context thread. The C side is `plumb_webrtc_answer`.
    public func webRTCAnswer(offer: String, codec: String, gatheringTimeout: Duration = .seconds(5)) throws(GStreamerError) -> String {
        let milliseconds = UInt32(clamping: gatheringTimeout.components.seconds * 1000
                                  + gatheringTimeout.components.attoseconds / 1_000_000_000_000_000)
        var error: UnsafeMutablePointer<gchar>?
        guard let answer = plumb_webrtc_answer(element, offer, codec, milliseconds, &error) else {
            let message = error.map { String(cString: $0) } ?? "webrtcbin failed"
            g_free(error)
            throw GStreamerError(message: message, source: path)
        }
        defer { g_free(answer) }
        return String(cString: answer)
    }
}

extension ProbeInfo {
    /// An upstream force-key-unit request: what webrtcbin sends up when a viewer asks
    /// for a picture (RTCP PLI or FIR).
    public var isForceKeyUnit: Bool {
        guard let event else { return false }
        return plumb_event_is_force_key_unit(event) != 0
    }
}
