/// A wrong command line: printed with the command's usage, exit 2.
package struct UsageError: Error, CustomStringConvertible {
    package var description: String
    package init(_ message: String) { description = message }
}

/// The arguments after the command name, consumed option by option. Whatever
/// is left at the end is an error, so a typo never passes silently.
package struct Arguments {
    package private(set) var rest: [String]

    package init(_ args: [String]) { rest = args }

    /// Removes a boolean flag; true if it was there.
    package mutating func flag(_ names: String...) -> Bool {
        guard let i = rest.firstIndex(where: { names.contains($0) }) else { return false }
        rest.remove(at: i)
        return true
    }

    /// Removes every `--name VALUE` / `--name=VALUE` / `-D VALUE` / `-DVALUE`, in order.
    package mutating func options(_ names: String...) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = 0
        while i < rest.count {
            let arg = rest[i]
            if names.contains(arg) {
                guard i + 1 < rest.count else { throw UsageError("\(arg) needs a value") }
                values.append(rest[i + 1])
                rest.removeSubrange(i...(i + 1))
            } else if let name = names.first(where: { arg.hasPrefix($0 + "=") || ($0.count == 2 && arg.hasPrefix($0) && arg.count > 2) }) {
                let value = arg.dropFirst(name.count)
                values.append(String(value.hasPrefix("=") ? value.dropFirst() : value))
                rest.remove(at: i)
            } else if arg == "--" {
                break
            } else {
                i += 1
            }
        }
        return values
    }

    /// The last value of a single-valued option.
    package mutating func option(_ names: String...) throws(UsageError) -> String? {
        var values: [String] = []
        for name in names { values += try options(name) }
        return values.last
    }

    /// The next positional argument.
    package mutating func positional(_ what: String) throws(UsageError) -> String {
        rest.removeAll { $0 == "--" }
        guard let i = rest.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) else {
            throw UsageError("missing \(what)")
        }
        return rest.remove(at: i)
    }

    /// Fails on anything not consumed.
    package func finish() throws(UsageError) {
        guard let first = rest.first else { return }
        throw UsageError(first.hasPrefix("-") ? "unknown option \(first)" : "unexpected argument \"\(first)\"")
    }
}

/// Parses `KEY=VALUE` from `-D`.
package func parseDefines(_ values: [String]) throws(UsageError) -> [String: String] {
    var result: [String: String] = [:]
    for v in values {
        guard let eq = v.firstIndex(of: "="), eq != v.startIndex else {
            throw UsageError("-D \(v): expected -D NAME=VALUE")
        }
        result[String(v[..<eq])] = String(v[v.index(after: eq)...])
    }
    return result
}

/// A number of seconds, for --duration and friends.
package func parseSeconds(_ text: String, option: String) throws(UsageError) -> Double {
    guard let v = Double(text), v.isFinite, v > 0 else {
        throw UsageError("\(option) \(text): expected a positive number of seconds")
    }
    return v
}
