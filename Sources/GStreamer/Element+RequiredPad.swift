extension Element {
    /// gst_element_get_static_pad, for a pad the element's factory always has ("src" of an
    /// encoder): an element without it is named in the error instead of crashing the caller.
    public func requiredPad(_ name: String) throws(GStreamerError) -> Pad {
        guard let pad = staticPad(name) else {
            throw GStreamerError(message: "\(self.name) has no pad \"\(name)\"", source: path)
        }
        return pad
    }
}
