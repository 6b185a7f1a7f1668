import Foundation

/// A configuration that cannot be used: says where (file and line, or the
/// command line), which group and key, and what would be accepted.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Origin: Sendable, Equatable {
        case file(String)
        case commandLine
        /// Text parsed without a file name (tests, stdin).
        case text
    }

    public var origin: Origin
    /// 1-based line in the file, when it could be found.
    public var line: Int?
    public var group: String?
    public var key: String?
    /// The offending value as written.
    public var value: String?
    /// What is wrong and what is accepted.
    public var message: String

    public init(origin: Origin, line: Int? = nil, group: String? = nil, key: String? = nil,
                value: String? = nil, message: String) {
        self.origin = origin
        self.line = line
        self.group = group
        self.key = key
        self.value = value
        self.message = message
    }

    /// `plumb.ini:12: [camera] size = "big": expected WIDTHxHEIGHT ...`, or
    /// `command line: camera.size=big: expected ...`.
    public var description: String {
        var text: String
        switch origin {
        case .file(let path): text = line.map { "\(path):\($0)" } ?? path
        case .commandLine: text = "command line"
        case .text: text = line.map { "config:\($0)" } ?? "config"
        }
        if let group, let key {
            if origin == .commandLine {
                text += ": \(group).\(key)=\(value ?? "")"
            } else {
                text += ": [\(group)] \(key)"
                if let value { text += " = \"\(value)\"" }
            }
        }
        return text + ": " + message
    }
}

/// Finds the line of a group header or a key in INI text: GKeyFile parses but
/// does not report positions. When a group or key appears more than once the
/// last occurrence is reported, because that is the one GKeyFile keeps.
struct ConfigLineLocator {
    private let lines: [Substring]

    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    func line(ofGroup group: String) -> Int? {
        var found: Int?
        for (i, line) in lines.enumerated() where Self.groupName(line) == group { found = i + 1 }
        return found
    }

    func line(ofKey key: String, inGroup group: String) -> Int? {
        var current: String?
        var found: Int?
        for (i, line) in lines.enumerated() {
            if let name = Self.groupName(line) {
                current = name
            } else if current == group, let eq = line.firstIndex(of: "="),
                      line[..<eq].trimmingCharacters(in: .whitespaces) == key {
                found = i + 1
            }
        }
        return found
    }

    /// Every `key = value` line: (group, key, line). GKeyFile hides localized
    /// keys (`key[de]`), which Plumb does not support; this sees them.
    var keyLines: [(group: String, key: String, line: Int)] {
        var current: String?
        var result: [(String, String, Int)] = []
        for (i, line) in lines.enumerated() {
            if let name = Self.groupName(line) {
                current = name
            } else if let current, !line.trimmingCharacters(in: .whitespaces).hasPrefix("#"),
                      let eq = line.firstIndex(of: "=") {
                result.append((current, line[..<eq].trimmingCharacters(in: .whitespaces), i + 1))
            }
        }
        return result
    }

    /// The first line that is neither blank, a comment, a group header nor `key=value`:
    /// where GKeyFile's syntax error most likely is.
    var firstInvalidLine: Int? {
        var seenGroup = false
        for (i, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if Self.groupName(raw) != nil { seenGroup = true; continue }
            if !seenGroup || !line.contains("=") || line.hasPrefix("=") { return i + 1 }
        }
        return nil
    }

    private static func groupName(_ line: Substring) -> String? {
        let t = line.trimmingCharacters(in: .whitespaces)
        guard t.hasPrefix("["), t.hasSuffix("]"), t.count >= 2 else { return nil }
        return String(t.dropFirst().dropLast())
    }
}
