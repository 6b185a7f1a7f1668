internal import CGStreamer

extension Element {
    /// gst_element_set_state without waiting: asks for `state` and returns at once; the
    /// bus reports how it went (state-changed, async-done, error). For an owner that must
    /// not block its thread on a slow change (a network sink connecting).
    public func requestState(_ state: State) -> StateChangeRequest {
        switch gst_element_set_state(element, state.gst) {
        case GST_STATE_CHANGE_FAILURE: return .failed
        case GST_STATE_CHANGE_ASYNC: return .pending
        case GST_STATE_CHANGE_NO_PREROLL: return .live
        default: return .done
        }
    }
}

/// What `Element.requestState` got back (GstStateChangeReturn).
public enum StateChangeRequest: Sendable, Equatable {
    /// Reached at once.
    case done
    /// Under way: the bus says when it is done.
    case pending
    /// Reached, but a live source will not preroll.
    case live
    /// Refused; the bus carries the error.
    case failed
}
