internal import CGStreamer

/// An owned GstBin.
public class Bin: Element, @unchecked Sendable {
    var bin: UnsafeMutablePointer<GstBin> { cast(raw) }

    public convenience init(name: String? = nil) throws(GStreamerError) {
        try Gst.initialize()
        self.init(raw: UnsafeMutableRawPointer(gst_bin_new(name)!))
    }

    /// gst_bin_add for each element; an element that already has a parent or whose
    /// name another child holds is an error (checked first: GStreamer would print a
    /// GLib warning and refuse).
    public func add(_ elements: Element...) throws(GStreamerError) {
        try add(elements)
    }

    public func add(_ elements: [Element]) throws(GStreamerError) {
        for e in elements {
            if let parent = e.parent {
                throw GStreamerError(message: "could not add \(e.name) to \(name): it is already in \(parent.name)",
                                     source: path)
            }
            let taken = e.name
            if children.contains(where: { $0.name == taken }) {
                throw GStreamerError(message: "could not add \(taken) to \(name): another element has that name",
                                     source: path)
            }
            if gst_bin_add(bin, e.element) == 0 {
                throw GStreamerError(message: "could not add \(taken) to \(name)", source: path)
            }
        }
    }

    /// gst_bin_remove. The element must be in NULL state or about to be set to it.
    /// An element that is not a direct child is an error (GStreamer would warn).
    public func remove(_ element: Element) throws(GStreamerError) {
        guard let parent = element.parent, parent.raw == raw else {
            throw GStreamerError(message: "\(element.name) is not in \(name)", source: path)
        }
        if gst_bin_remove(bin, element.element) == 0 {
            throw GStreamerError(message: "could not remove \(element.name) from \(name)", source: path)
        }
    }

    /// gst_bin_get_by_name (recursive).
    public func element(named name: String) -> Element? {
        gst_bin_get_by_name(bin, name).map { Element.wrap(UnsafeMutableRawPointer($0), retain: false) }
    }

    /// The direct children.
    public var children: [Element] {
        collect(gst_bin_iterate_elements(bin)) { Element.wrap($0, retain: true) }
    }

    /// Every element below this bin, depth first.
    public var allElements: [Element] {
        collect(gst_bin_iterate_recurse(bin)) { Element.wrap($0, retain: true) }
    }
}
