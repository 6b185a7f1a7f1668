/// A string literal in Swift source: its text (escapes read, each interpolation replaced by
/// U+0001), the line it starts on, and the code before it on that line (`runTool(`, `factory: `).
///
/// Enough of Swift's lexical grammar to find literals, not words in comments: `//` and
/// nested `/* */` comments, `"..."`, `"""..."""`, raw `#"..."#` strings and `\(...)`
/// interpolations, whose own literals are found too.
struct SwiftStringLiteral: Equatable {
    var text: String
    var line: Int
    var before: String

    static let interpolation: Character = "\u{1}"

    static func all(in source: String) -> [SwiftStringLiteral] {
        var lexer = Lexer(Array(source.unicodeScalars))
        lexer.code(until: nil)
        return lexer.found.sorted { $0.line < $1.line }
    }

    private struct Lexer {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1
        var lineStart = 0
        var found: [SwiftStringLiteral] = []

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }

        mutating func advance() {
            if s[i] == "\n" { line += 1; lineStart = i + 1 }
            i += 1
        }

        /// Code up to the `)` that closes an interpolation (`closing` = ")"), or to the end.
        mutating func code(until closing: Unicode.Scalar?) {
            var depth = 0
            while let c = peek() {
                if c == "/" && peek(1) == "/" {
                    while let d = peek(), d != "\n" { advance() }
                } else if c == "/" && peek(1) == "*" {
                    blockComment()
                } else if c == "\"" || (c == "#" && rawStringStarts()) {
                    literal()
                } else {
                    if closing != nil {
                        if c == "(" { depth += 1 }
                        if c == ")" {
                            if depth == 0 { advance(); return }
                            depth -= 1
                        }
                    }
                    advance()
                }
            }
        }

        mutating func blockComment() {
            var depth = 0
            while let c = peek() {
                if c == "/" && peek(1) == "*" { depth += 1; advance(); advance(); continue }
                if c == "*" && peek(1) == "/" {
                    depth -= 1; advance(); advance()
                    if depth == 0 { return }
                    continue
                }
                advance()
            }
        }

        func rawStringStarts() -> Bool {
            var j = i
            while j < s.count && s[j] == "#" { j += 1 }
            return j < s.count && s[j] == "\""
        }

        mutating func literal() {
            let startLine = line
            let before = String(String.UnicodeScalarView(s[lineStart..<i]))
            var hashes = 0
            while peek() == "#" { hashes += 1; advance() }
            let multiline = peek() == "\"" && peek(1) == "\"" && peek(2) == "\""
            for _ in 0..<(multiline ? 3 : 1) { advance() }
            var text = String.UnicodeScalarView()
            while let c = peek() {
                if closes(multiline: multiline, hashes: hashes) {
                    for _ in 0..<((multiline ? 3 : 1) + hashes) { advance() }
                    break
                }
                if c == "\\" && escapeStarts(hashes: hashes) {
                    for _ in 0...hashes { advance() }
                    guard let e = peek() else { break }
                    switch e {
                    case "(":
                        advance()
                        code(until: ")")
                        text.append(Unicode.Scalar(1))
                    case "n": advance(); text.append("\n")
                    case "t": advance(); text.append("\t")
                    case "r": advance(); text.append("\r")
                    case "0": advance(); text.append(Unicode.Scalar(0))
                    case "u":
                        advance()
                        var hex = ""
                        if peek() == "{" {
                            advance()
                            while let h = peek(), h != "}" { hex.unicodeScalars.append(h); advance() }
                            if peek() == "}" { advance() }
                        }
                        if let v = UInt32(hex, radix: 16), let u = Unicode.Scalar(v) { text.append(u) }
                    case "\n":
                        advance()  // a line continuation in a multi-line literal
                    default:
                        advance(); text.append(e)
                    }
                    continue
                }
                if c == "\n" && !multiline { break }  // unterminated: stop at the line's end
                text.append(c)
                advance()
            }
            var body = String(text)
            if multiline { body = Self.dedented(body) }
            found.append(SwiftStringLiteral(text: body, line: startLine, before: before))
        }

        /// A multi-line literal's value: without its first line break, its last line (the
        /// closing delimiter's indentation) and that indentation on every line.
        static func dedented(_ body: String) -> String {
            var lines = body.components(separatedBy: "\n")
            if lines.first?.isEmpty == true { lines.removeFirst() }
            guard let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) else {
                return lines.joined(separator: "\n")
            }
            lines.removeLast()
            return lines.map { $0.hasPrefix(last) ? String($0.dropFirst(last.count)) : $0 }.joined(separator: "\n")
        }

        func closes(multiline: Bool, hashes: Int) -> Bool {
            let quotes = multiline ? 3 : 1
            for k in 0..<quotes where peek(k) != "\"" { return false }
            for k in 0..<hashes where peek(quotes + k) != "#" { return false }
            return true
        }

        func escapeStarts(hashes: Int) -> Bool {
            for k in 0..<hashes where peek(1 + k) != "#" { return false }
            return true
        }
    }
}
