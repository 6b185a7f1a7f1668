import FoundationEssentials
import Glibc
import PlumbBase

/// A pipeline description file: a header of `# key: value` lines, then a
/// gst-launch description that may use `${var}`.
///
///     # name: test-preview
///     # description: The moving test pattern into a local sink
///     # var: width=640
///     # var: sink=fakesink
///     videotestsrc name=src is-live=true ! video/x-raw,width=${width} ! ${sink}
///
/// Header keys: `name`, `description`, and `var` (repeatable: `NAME=DEFAULT`,
/// or just `NAME` for a variable that must be given with `-D NAME=VALUE`).
/// Any other `#` line is a comment, in the header or the body. `$$` is a literal `$`.
public struct PipelineDescription: Sendable {
    public struct Variable: Sendable, Equatable {
        public var name: String
        /// nil: required.
        public var defaultValue: String?
        public var location: SourceLocation
    }

    public var file: String
    public var name: String
    public var summary: String?
    public var variables: [Variable]
    /// The whole file, for locating tokens (comments are blanked, not removed, so positions hold).
    let lines: [String]

    /// Reads and parses a description file. A missing or unreadable file is a diagnostic at 1:1.
    public static func load(_ path: String) throws(Diagnostic) -> PipelineDescription {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path)
                ? "cannot read the pipeline file (not readable or not UTF-8)"
                : "no such pipeline file"
            throw Diagnostic(SourceLocation(file: path, line: 1, column: 1), reason)
        }
        return try PipelineDescription(text: text, file: path)
    }

    public init(text: String, file: String = "<string>") throws(Diagnostic) {
        self.file = file
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
        var name = Path.name(Path.deletingExtension(file))
        var summary: String?
        var variables: [Variable] = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            guard trimmed.hasPrefix("#") else { continue }
            // Every comment line is blanked so the lexer never sees it; header keys are read first.
            defer { lines[index] = String(repeating: " ", count: line.count) }
            let body = trimmed.dropFirst().drop(while: { $0 == " " })
            guard let colon = body.firstIndex(of: ":") else { continue }
            let key = body[..<colon].trimmed.lowercased()
            let value = body[body.index(after: colon)...].trimmed
            let column = line.count - body.count + 1
            let location = SourceLocation(file: file, line: index + 1, column: column)
            switch key {
            case "name": name = value
            case "description": summary = value
            case "var":
                let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let varName = parts[0].trimmed
                guard Self.isIdentifier(varName) else {
                    throw Diagnostic(location, "bad variable declaration \"\(value)\": expected `# var: NAME=DEFAULT` or `# var: NAME`")
                }
                guard !variables.contains(where: { $0.name == varName }) else {
                    throw Diagnostic(location, "variable \"\(varName)\" is declared twice")
                }
                let defaultValue = parts.count > 1 ? parts[1].trimmed : nil
                variables.append(Variable(name: varName, defaultValue: defaultValue, location: location))
            default:
                continue  // a comment that happens to contain a colon
            }
        }
        self.name = name
        self.summary = summary
        self.variables = variables
        self.lines = lines
    }

    static func isIdentifier<S: StringProtocol>(_ s: S) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        return s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    /// Substitutes variables: `overrides` (from `-D`) win over defaults. An undefined
    /// variable is a diagnostic at its `${`; an override for an undeclared variable too.
    public func resolve(_ overrides: [String: String] = [:]) throws(Diagnostic) -> ResolvedDescription {
        for key in overrides.keys.sorted() where !variables.contains(where: { $0.name == key }) {
            let known = variables.map(\.name).joined(separator: ", ")
            throw Diagnostic(SourceLocation(file: file, line: 1, column: 1),
                             "-D \(key): no variable \"\(key)\" is declared in this file"
                                + (known.isEmpty ? " (it declares none)" : " (declared: \(known))"))
        }
        var values: [String: String] = [:]
        for v in variables { if let d = v.defaultValue { values[v.name] = d } }
        for (k, v) in overrides { values[k] = v }

        var text: [Character] = []
        var origins: [SourceLocation] = []
        for (lineIndex, line) in lines.enumerated() {
            let chars = Array(line)
            var i = 0
            while i < chars.count {
                let here = SourceLocation(file: file, line: lineIndex + 1, column: i + 1)
                if chars[i] == "$", i + 1 < chars.count, chars[i + 1] == "$" {
                    text.append("$"); origins.append(here); i += 2
                } else if chars[i] == "$", i + 1 < chars.count, chars[i + 1] == "{" {
                    guard let close = chars[(i + 2)...].firstIndex(of: "}") else {
                        throw Diagnostic(here, "unterminated \"${\": expected \"}\"")
                    }
                    let varName = String(chars[(i + 2)..<close])
                    guard let value = values[varName] else {
                        let declared = variables.contains(where: { $0.name == varName })
                        throw Diagnostic(here, declared
                            ? "variable \"\(varName)\" has no default: give it with -D \(varName)=VALUE"
                            : "undefined variable \"\(varName)\": declare it with `# var: \(varName)=DEFAULT` or give -D \(varName)=VALUE")
                    }
                    // Every character of the value points at the `${`.
                    text.append(contentsOf: value); origins.append(contentsOf: Array(repeating: here, count: value.count))
                    i = close + 1
                } else {
                    text.append(chars[i]); origins.append(here); i += 1
                }
            }
            text.append("\n")
            origins.append(SourceLocation(file: file, line: lineIndex + 1, column: chars.count + 1))
        }
        return ResolvedDescription(file: file, characters: text, origins: origins)
    }
}

/// A description after variable substitution, each character mapped back to its place in the file.
public struct ResolvedDescription: Sendable {
    public let file: String
    let characters: [Character]
    let origins: [SourceLocation]

    /// The gst-launch text.
    public var text: String { String(characters) }

    /// Where the character at `offset` came from.
    func location(at offset: Int) -> SourceLocation {
        if origins.isEmpty { return SourceLocation(file: file, line: 1, column: 1) }
        return origins[max(0, min(offset, origins.count - 1))]
    }

    /// The first non-blank character's location: where errors without a better place point.
    var start: SourceLocation {
        location(at: characters.firstIndex(where: { !$0.isWhitespace }) ?? 0)
    }
}
