import Foundation
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

    /// Lexes, checks each element, parses and brings the pipeline to READY, then back to NULL.
    /// A source device that is missing, busy or forbidden is a warning unless `strict`:
    /// the description is sound, this machine just lacks the camera.
    public static func check(_ resolved: ResolvedDescription, toReady: Bool = true, strict: Bool = false)
        throws(Diagnostic) -> Report
    {
        let items = try validate(resolved)
        let (pipeline, names) = try parseNamed(resolved, items)
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
        return Report(elementCount: items.reduce(0) { if case .element = $1 { $0 + 1 } else { $0 } },
                      roles: roles, warnings: warnings)
    }

    /// A resource error (not found, busy, not authorized) from a source element.
    static func isMissingDevice(_ error: GStreamerError, _ items: [LaunchLexer.Item], _ names: [String: Int]) -> Bool {
        // GST_RESOURCE_ERROR_NOT_FOUND, _BUSY, _OPEN_READ, _OPEN_READ_WRITE, _NOT_AUTHORIZED
        guard error.domain == GStreamerError.resourceDomain, [3, 4, 5, 7, 15].contains(error.code),
              let name = error.sourceName, let index = names[name],
              case .element(let e) = items[index] else { return false }
        return Gst.elementClass(e.factory)?.contains("Source") ?? false
    }

    /// The pipeline `plumb run` plays: checked as above, parsed from the user's own text.
    public static func build(_ resolved: ResolvedDescription) throws(Diagnostic) -> Pipeline {
        let items = try validate(resolved)
        do {
            return try Pipeline.parse(resolved.text)
        } catch {
            // Parse again with names of our own, only to find where the error is.
            _ = try parseNamed(resolved, items)
            throw Diagnostic(resolved.start, error.message)
        }
    }

    // MARK: - Steps

    /// Lexes and checks every factory, property value, caps string and role.
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
        return items
    }

    private static func validate(_ e: LaunchLexer.ElementItem, _ resolved: ResolvedDescription) throws(Diagnostic) {
        if e.isURI { return }
        guard Gst.hasElement(e.factory) else {
            throw Diagnostic(resolved.location(at: e.offset),
                             "no element \"\(e.factory)\": not a GStreamer element, or its plugin is not installed (gst-inspect-1.0 lists them)")
        }
        let element: Element
        do { element = try Element(factory: e.factory, name: e.factory) } catch {
            throw Diagnostic(resolved.location(at: e.offset), error.message)
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
        for (index, item) in items.enumerated().reversed() {
            guard case .element(let e) = item else { continue }
            if let n = e.explicitName { names[n] = index; continue }
            let name = "plumb_e\(index)"
            names[name] = index
            chars.insert(contentsOf: " name=\(name) ", at: e.endOffset)
        }
        do {
            return (try Pipeline.parse(String(chars)), names)
        } catch {
            throw Diagnostic(locate(error, resolved, items, names), readable(error.message, items, names))
        }
    }

    /// The message with our generated names replaced by the factories the user wrote.
    static func readable(_ message: String, _ items: [LaunchLexer.Item], _ names: [String: Int]) -> String {
        var text = message
        for (name, index) in names where name.hasPrefix("plumb_e") {
            if case .element(let e) = items[index] {
                text = text.replacingOccurrences(of: name, with: e.factory)
            }
        }
        return text
    }

    /// The best place in the file for an error that names elements.
    static func locate(_ error: GStreamerError, _ resolved: ResolvedDescription, _ items: [LaunchLexer.Item],
                       _ names: [String: Int]) -> SourceLocation {
        func loc(_ index: Int) -> SourceLocation { resolved.location(at: items[index].offset) }
        if error.domain == GStreamerError.parseDomain, error.code == ParseErrorCode.link.rawValue,
           let match = error.message.firstMatch(of: /could not link (\S+?),? to (\S+?)(,|$)/),
           let a = names[String(match.1)], let b = names[String(match.2)] {
            // Point at the caps between them if caps were the problem, else at the link.
            let range = a < b ? (a + 1)..<b : (b + 1)..<a
            for i in range { if case .caps = items[i] { return loc(i) } }
            for i in range { if case .link = items[i] { return loc(i) } }
            return loc(b)
        }
        if let name = error.sourceName, let index = names[name] { return loc(index) }
        // Messages that quote an element name ("no property "x" in element "y"").
        for (name, index) in names where error.message.contains("\"\(name)\"") { return loc(index) }
        return resolved.start
    }
}
