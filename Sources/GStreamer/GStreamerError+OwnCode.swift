extension GStreamerError {
    /// Codes of the errors this layer raises itself (`GStreamerError.ownDomain`), so callers
    /// can tell them apart without matching message text. 0 is "other".
    public enum OwnCode: Int, Sendable {
        case other = 0
        /// An asynchronous state change did not complete within the time allowed,
        /// and no bus error explains why.
        case stateChangeTimedOut = 1
        /// A state change failed and the bus carried no error saying why.
        case stateChangeFailed = 2
        /// A tag name GStreamer does not know (gst_tag_exists).
        case unknownTag = 3
        /// A tag set with a value of another type than the tag's.
        case tagTypeMismatch = 4
    }

    /// Whether this is the layer's own error with that code.
    public func isOwn(_ code: OwnCode) -> Bool {
        domain == GStreamerError.ownDomain && self.code == code.rawValue
    }
}
