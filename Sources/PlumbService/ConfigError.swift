import FoundationEssentials
import Glibc
import Plumb

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
