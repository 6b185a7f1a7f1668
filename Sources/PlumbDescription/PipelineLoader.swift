import FoundationEssentials
import Glibc
import GStreamer

/// Turns a resolved description into a pipeline, and every failure into a
/// diagnostic that points into the file.
///
/// GStreamer's parser says *what* is wrong but not *where*, so the description is
/// first lexed and its elements, properties and caps checked one by one; link and
/// state errors, which name elements, are mapped back through the element names
/// (the check gives each unnamed element a name of its own for that purpose).
public enum PipelineLoader {
    /// What `plumb check` learned.
    public struct Report: Sendable {
        public var elementCount: Int
        /// Role -> element names carrying it.
        public var roles: [ElementRole: [String]]
        /// Problems of this machine rather than of the description: a capture
        /// device that is missing, busy or forbidden here.
        public var warnings: [Diagnostic] = []
    }

    /// Lexes, checks each element, parses, checks every element is linked, and brings the
    /// pipeline to READY, then back to NULL. Sinks that write files are kept out of the state
    /// change (their folders are checked instead): a check must not create or truncate a file.
    /// A source device that is missing, busy or forbidden is a warning unless `strict`:
    /// the description is sound, this machine just lacks the camera.
    public static func check(_ resolved: ResolvedDescription, toReady: Bool = true, strict: Bool = false)
        throws(Diagnostic) -> Report
    {
        let items = try validate(resolved)
        let (pipeline, names) = try parseNamed(resolved, items)
        let elements = userElements(pipeline, items, names)
        try checkLinks(elements, resolved, items)
        try holdFileSinks(elements, resolved, items)
        var warnings: [Diagnostic] = []
        if toReady {
            do {
                try pipeline.setState(.ready)
            } catch {
                _ = try? pipeline.setState(.null)
                let reason = error.debug?.split(separator: "\n").last.map { " (\($0))" } ?? ""
                let diagnostic = Diagnostic(locate(error, resolved, items, names),
                                            "cannot reach READY: " + readable(error.message + reason, items, names))
                guard !strict, isMissingDevice(error, items, names) else { throw diagnostic }
                warnings.append(diagnostic)
            }
            _ = try? pipeline.setState(.null)
        }
        var roles: [ElementRole: [String]] = [:]
        for case .element(let e) in items {
            if let n = e.explicitName, let role = ElementRole.of(elementName: n) { roles[role, default: []].append(n) }
        }
        return Report(elementCount: items.reduce(0) { if case .element(let e) = $1, !e.isImplicitBin { $0 + 1 } else { $0 } },
                      roles: roles, warnings: warnings)
    }

    /// A resource error (not found, busy, not authorized) from a source element.
    static func isMissingDevice(_ error: GStreamerError, _ items: [LaunchLexer.Item], _ names: [String: Int]) -> Bool {
        guard let code = error.resource, [.notFound, .busy, .openRead, .openReadWrite, .notAuthorized].contains(code),
              let name = error.sourceName, let index = names[name],
              case .element(let e) = items[index] else { return false }
        return Gst.elementClass(e.factory)?.contains("Source") ?? false
    }

    /// The pipeline `plumb run` plays: checked as above (but not brought to READY), parsed
    /// from the user's own text, so runtime messages carry the user's element names.
    public static func build(_ resolved: ResolvedDescription) throws(Diagnostic) -> Pipeline {
        let items = try validate(resolved)
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.parse(resolved.text)
        } catch {
            // Parse again with names of our own, only to find where the error is.
            _ = try parseNamed(resolved, items)
            throw Diagnostic(resolved.start, error.message)
        }
        // The links are checked on a copy with names of our own, to place what is unlinked.
        // A copy our naming could not parse is no reason to refuse the user's text.
        if let (named, names) = try? parseNamed(resolved, items) {
            try checkLinks(userElements(named, items, names), resolved, items)
        }
        return pipeline
    }

    // MARK: - Steps

    /// Lexes and checks every factory, property value, caps string, role and name.
    static func validate(_ resolved: ResolvedDescription) throws(Diagnostic) -> [LaunchLexer.Item] {
        do { try Gst.initialize() } catch { throw Diagnostic(resolved.start, "GStreamer failed to initialize: \(error)") }
        let items: [LaunchLexer.Item]
        do {
            items = try LaunchLexer(resolved.characters).lex()
        } catch {
            throw Diagnostic(resolved.location(at: error.offset), "syntax error: \(error.message)")
        }
        for item in items {
            switch item {
            case .element(let e):
                try validate(e, resolved)
            case .caps(let text, let offset):
                if (try? Caps(text)) == nil {
                    throw Diagnostic(resolved.location(at: offset), "\"\(text)\" is not valid caps")
                }
            default:
                continue
            }
        }
        try checkNamesAreUnique(items, resolved)
        return items
    }

    /// Two elements of one name: GStreamer refuses the second (or, when linking across
    /// lines, links the wrong one), and every message naming it would be ambiguous.
    static func checkNamesAreUnique(_ items: [LaunchLexer.Item], _ resolved: ResolvedDescription) throws(Diagnostic) {
        var first: [String: (factory: String, offset: Int)] = [:]
        for case .element(let e) in items {
            guard let property = e.properties.last(where: { $0.key == "name" }) else { continue }
            if let earlier = first[property.value] {
                let place = resolved.location(at: earlier.offset)
                throw Diagnostic(resolved.location(at: property.keyOffset),
                                 "duplicate element name \"\(property.value)\": \(earlier.factory) at "
                                    + "\(place.line):\(place.column) already has it (names must be unique)")
            }
            first[property.value] = (e.factory, property.keyOffset)
        }
    }

    private static func validate(_ e: LaunchLexer.ElementItem, _ resolved: ResolvedDescription) throws(Diagnostic) {
        if e.isURI { return }
        guard Gst.hasElement(e.factory) else {
            if e.endOffset < resolved.characters.count, resolved.characters[e.endOffset] == "/" {
                throw Diagnostic(resolved.location(at: e.offset),
                                 "\"\(e.factory)/...\" looks like caps, which go between two elements: \"a ! \(e.factory)/... ! b\"")
            }
            throw Diagnostic(resolved.location(at: e.offset),
                             "no element \"\(e.factory)\": not a GStreamer element, or its plugin is not installed (gst-inspect-1.0 lists them)")
        }
        let element: Element
        do { element = try Element(factory: e.factory, name: e.factory) } catch {
            throw Diagnostic(resolved.location(at: e.offset), error.message)
        }
        // A name is given at construction, where GObject keeps the first of two and prints a
        // critical warning (other properties are set in turn, the last one winning, as in GStreamer).
        let names = e.properties.filter { $0.key == "name" }
        if names.count > 1 {
            let place = resolved.location(at: names[0].keyOffset)
            throw Diagnostic(resolved.location(at: names[1].keyOffset),
                             "\"name\" is set twice on \(e.factory) (first at \(place.line):\(place.column)): "
                                + "GStreamer would keep the first and warn; keep one")
        }
        for p in e.properties where !p.key.contains("::") && !p.key.hasPrefix("@") {
            guard element.hasProperty(p.key) else {
                throw Diagnostic(resolved.location(at: p.keyOffset),
                                 "element \"\(e.factory)\" has no property \"\(p.key)\"")
            }
            if element.propertyHoldsObject(p.key) { continue }
            do {
                try element.set(p.key, parsing: p.value)
            } catch {
                throw Diagnostic(resolved.location(at: p.valueOffset), error.description)
            }
        }
        if let name = e.explicitName, let role = ElementRole.of(elementName: name),
           let factories = role.expectedFactories, !factories.contains(e.factory) {
            throw Diagnostic(resolved.location(at: e.offset),
                             "the name \"\(name)\" gives this element the role \(role.rawValue), which needs "
                                + factories.joined(separator: " or ") + ", not \(e.factory)")
        }
    }

    /// Parses with a generated name on every unnamed element, so GStreamer's
    /// messages ("could not link a to b") name elements we can place.
    static func parseNamed(_ resolved: ResolvedDescription, _ items: [LaunchLexer.Item])
        throws(Diagnostic) -> (Pipeline, [String: Int])
    {
        var chars = resolved.characters
        var names: [String: Int] = [:]  // element name -> item index
        var explicit: Set<String> = []
        for case .element(let e) in items { if let n = e.explicitName { explicit.insert(n) } }
        // Reversed: each insertion leaves the offsets before it valid.
        for (index, item) in items.enumerated().reversed() {
            guard case .element(let e) = item else { continue }
            if let n = e.explicitName { names[n] = index; continue }
            // A URI (`file:///x.mp4`) takes no properties; its element stays unnamed, and so
            // does a plain `( ... )` bin.
            if e.isURI || e.isImplicitBin { continue }
            var name = "plumb_e\(index)"
            while explicit.contains(name) { name += "_" }
            names[name] = index
            chars.insert(contentsOf: " name=\(name) ", at: min(e.endOffset, chars.count))
        }
        do {
            return (try Pipeline.parse(String(chars)), names)
        } catch {
            throw Diagnostic(locate(error, resolved, items, names), readable(error.message, items, names))
        }
    }

    /// The elements in the pipeline and in the bins the user wrote (`( ... )`, `bin.( ... )`),
    /// in the order of the file, each with its item when its name leads back to one (a URI's
    /// element and a caps filter have none). Not the insides of elements that are bins of
    /// their own (splitmuxsink's muxer and sink): those are theirs to make and link.
    static func userElements(_ pipeline: Pipeline, _ items: [LaunchLexer.Item], _ names: [String: Int])
        -> [(element: Element, index: Int?)]
    {
        var found: [(element: Element, index: Int?)] = []
        func walk(_ bin: Bin) {
            for child in bin.children {
                found.append((child, names[child.name]))
                if let inner = child as? Bin, ["bin", "pipeline"].contains(child.factoryName) { walk(inner) }
            }
        }
        walk(pipeline)
        return found.sorted { ($0.index ?? Int.max) < ($1.index ?? Int.max) }
    }

    /// The message with our generated names replaced by the factories the user wrote.
    static func readable(_ message: String, _ items: [LaunchLexer.Item], _ names: [String: Int]) -> String {
        var text = message
        // Longest first: "plumb_e1" must not replace the start of "plumb_e12".
        for (name, index) in names.sorted(by: { $0.key.count > $1.key.count }) {
            if case .element(let e) = items[index], e.explicitName == nil {
                text = text.replacing(name, with: e.factory)
            }
        }
        return text
    }

    /// The best place in the file for an error that names elements.
    static func locate(_ error: GStreamerError, _ resolved: ResolvedDescription, _ items: [LaunchLexer.Item],
                       _ names: [String: Int]) -> SourceLocation {
        func loc(_ index: Int) -> SourceLocation { resolved.location(at: items[index].offset) }
        if error.parse == .link,
           let match = error.message.firstMatch(of: /could not link (\S+?),? to (\S+?)(,|$)/),
           let a = names[String(match.1)], let b = names[String(match.2)] {
            // Point at the caps between them if caps were the problem, else at the link.
            // A stride, not a range: the two may be in either order, or be one element.
            let between = stride(from: min(a, b) + 1, to: max(a, b), by: 1)
            for i in between { if case .caps = items[i] { return loc(i) } }
            for i in between { if case .link = items[i] { return loc(i) } }
            return loc(b)
        }
        if let name = error.sourceName, let index = names[name] { return loc(index) }
        // Messages that quote an element name ("no property "x" in element "y"").
        for (name, index) in names where error.message.contains("\"\(name)\"") { return loc(index) }
        // "no source element for URI "borky://x"".
        for (index, item) in items.enumerated() {
            if case .element(let e) = item, e.isURI, error.message.contains("\"\(e.factory)\"") { return loc(index) }
        }
        return resolved.start
    }
}
