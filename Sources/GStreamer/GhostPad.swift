internal import CGStreamer

extension Bin {
    /// gst_ghost_pad_new + gst_element_add_pad: exposes `target` (a pad of a child)
    /// as this bin's own pad named `name`. Returns the ghost pad.
    @discardableResult
    public func addGhostPad(_ name: String, target: Pad) throws(GStreamerError) -> Pad {
        guard let ghost = gst_ghost_pad_new(name, target.pad) else {
            throw GStreamerError(message: "could not make ghost pad \(name) for \(target.path)", source: path)
        }
        // Sink the floating reference into our wrapper; the bin takes its own below.
        let pad = Pad(raw: UnsafeMutableRawPointer(ghost))
        guard gst_element_add_pad(element, ghost) != 0 else {
            throw GStreamerError(message: "\(name) already names a pad of \(self.name)", source: path)
        }
        return pad
    }
}
