internal import CGStreamer

extension Element {
    /// gst_element_is_locked_state / gst_element_set_locked_state: a locked element keeps
    /// its state when its parent's changes, so a check can bring a pipeline to READY
    /// without starting an element that would open a file.
    public var isStateLocked: Bool {
        get { gst_element_is_locked_state(element) != 0 }
        set { gst_element_set_locked_state(element, newValue ? 1 : 0) }
    }
}
