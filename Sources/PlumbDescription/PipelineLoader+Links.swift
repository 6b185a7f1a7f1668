import GStreamer

extension PipelineLoader {
    /// Every element the user wrote is linked on each side it has always-pads: GStreamer's
    /// parser accepts `a ! b  c` (a missing `!`) and the pipeline only fails once playing,
    /// with "not-linked" and no place. A side next to a `!` is left alone: the parser links
    /// it when a sometimes-pad appears (`decodebin ! videoconvert`). A URI not next to a link
    /// is never linked.
    static func checkLinks(_ elements: [(element: Element, index: Int?)], _ resolved: ResolvedDescription,
                           _ items: [LaunchLexer.Item]) throws(Diagnostic)
    {
        var byIndex: [Int: Element] = [:]
        for case let (element, index?) in elements { byIndex[index] = element }
        func isLink(_ i: Int) -> Bool {
            guard items.indices.contains(i), case .link = items[i] else { return false }
            return true
        }
        for (index, item) in items.enumerated() {
            guard case .element(let e) = item else { continue }
            // A URI's element has no name to find it by, and needs none: at the start of a
            // chain it is a source, linked only by the `!` after it (nothing can refer to it).
            if e.isURI, !isLink(index - 1), !isLink(index + 1) {
                throw Diagnostic(resolved.location(at: e.offset),
                                 "the output of \(e.factory) goes nowhere: nothing links it (missing \"! ...\" after it?)")
            }
            guard let element = byIndex[index] else { continue }
            if let pad = unlinkedAlwaysPad(element, .src), !isLink(index + 1) {
                // The next element unfed too: the `!` between them is what is missing.
                if items.indices.contains(index + 1), case .element(let next) = items[index + 1],
                   let nextElement = byIndex[index + 1], unlinkedAlwaysPad(nextElement, .sink) != nil {
                    let here = resolved.location(at: e.offset)
                    // `name=src! b`: GStreamer reads the "!" as part of the value.
                    let swallowed = e.properties.last.map { $0.value.hasSuffix("!") ? " (the \"!\" of \($0.key)=\($0.value) "
                        + "is part of its value: put a space before it)" : "" } ?? ""
                    throw Diagnostic(resolved.location(at: next.offset),
                                     "missing \"!\" before \(next.factory)? The output of \(e.factory) "
                                        + "(\(here.line):\(here.column)) and the input of \(next.factory) are not linked"
                                        + swallowed)
                }
                throw Diagnostic(resolved.location(at: e.offset),
                                 "the output of \(e.factory) goes nowhere: its \(pad.name) pad is not linked "
                                    + "(missing \"! ...\" after it?)")
            }
            if let pad = unlinkedAlwaysPad(element, .sink), !isLink(index - 1) {
                throw Diagnostic(resolved.location(at: e.offset),
                                 "nothing feeds \(e.factory): its \(pad.name) pad is not linked (missing \"!\" before it?)")
            }
        }
    }

    /// An always-pad on the `direction` side when no pad on that side is linked. One linked
    /// pad is enough: textoverlay's text_sink may stay free while its video_sink is fed.
    static func unlinkedAlwaysPad(_ element: Element, _ direction: Pad.Direction) -> Pad? {
        let pads = element.pads.filter { $0.direction == direction }
        guard !pads.contains(where: \.isLinked) else { return nil }
        return pads.first { $0.presence == .always }
    }
}
