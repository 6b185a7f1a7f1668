/// A light lexer for gst-launch descriptions: enough to point at the element,
/// property, caps or link an error is about. GStreamer's own parser still does
/// the real parse; this one only has to find things and their offsets.
struct LaunchLexer {
    struct Property {
        var key: String
        /// Unquoted.
        var value: String
        var keyOffset: Int
        var valueOffset: Int
    }

    struct ElementItem {
        var factory: String
        var offset: Int
        /// Where the checker can insert a name: after the factory word, or after a bin's `(`.
        var endOffset: Int
        var properties: [Property] = []
        /// `bin.( ... )`: properties right after the `(` are the bin's.
        var opensBin = false
        var explicitName: String? { properties.last(where: { $0.key == "name" })?.value }
        /// `file:///x`-style URIs become source/sink elements; not a factory name.
        var isURI: Bool { factory.contains("://") }
    }

    enum Item {
        case element(ElementItem)
        case caps(text: String, offset: Int)
        case link(offset: Int)
        case reference(name: String, offset: Int)
        case open(offset: Int)
        case close(offset: Int)

        var offset: Int {
            switch self {
            case .element(let e): return e.offset
            case .caps(_, let o), .link(let o), .reference(_, let o), .open(let o), .close(let o): return o
            }
        }
    }

    struct SyntaxError: Error {
        var offset: Int
        var message: String
    }

    let chars: [Character]

    init(_ text: [Character]) { chars = text }

    func lex() throws(SyntaxError) -> [Item] {
        var items: [Item] = []
        var i = 0
        var depth: [Int] = []
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            switch c {
            case "!":
                if case .link? = items.last { throw SyntaxError(offset: i, message: "two links in a row: an element is missing between them") }
                if items.isEmpty || isOpen(items.last) { throw SyntaxError(offset: i, message: "a link \"!\" with nothing before it") }
                items.append(.link(offset: i)); i += 1
            case "(":
                depth.append(i); items.append(.open(offset: i)); i += 1
            case ")":
                guard depth.popLast() != nil else { throw SyntaxError(offset: i, message: "\")\" without a matching \"(\"") }
                if case .link? = items.last { throw SyntaxError(offset: i, message: "a link \"!\" with nothing after it") }
                items.append(.close(offset: i)); i += 1
            default:
                let start = i
                if looksLikeCaps(at: i) {
                    let end = try scanCaps(from: i)
                    let text = String(chars[start..<end]).trimmingTrailingWhitespace
                    if text.first == "\"" {
                        throw SyntaxError(offset: start, message: "caps must not be quoted here (quotes are for the shell): write \(text.dropFirst().dropLast())")
                    }
                    items.append(.caps(text: text, offset: start))
                    i = end
                    continue
                }
                let (slice, end) = try scanWord(from: i)
                let word = Array(slice)
                i = end
                if let eq = firstUnquoted("=", in: word) {
                    let key = String(word[..<eq])
                    let value = unquote(Array(word[(eq + 1)...]))
                    guard let owner = propertyOwner(items), case .element(var e) = items[owner] else {
                        throw SyntaxError(offset: start, message: "property \"\(key)\" is not after an element")
                    }
                    e.properties.append(Property(key: key, value: value, keyOffset: start, valueOffset: start + eq + 1))
                    items[owner] = .element(e)
                } else if word.last == ".", end < chars.count, chars[end] == "(" {
                    // `bin.( ... )`: a bin of the named factory holding the parenthesised chain.
                    // gst-launch takes `name=` after the `(`, not between the word and it.
                    items.append(.element(ElementItem(factory: String(word.dropLast()), offset: start, endOffset: end + 1,
                                                      opensBin: true)))
                } else if word.contains("."), !String(word).contains("://") {
                    items.append(.reference(name: String(word.prefix(while: { $0 != "." })), offset: start))
                } else {
                    items.append(.element(ElementItem(factory: String(word), offset: start, endOffset: end)))
                }
            }
        }
        if let open = depth.last { throw SyntaxError(offset: open, message: "\"(\" without a matching \")\"") }
        if case .link(let o)? = items.last { throw SyntaxError(offset: o, message: "a link \"!\" with nothing after it") }
        if items.isEmpty { throw SyntaxError(offset: 0, message: "the pipeline description is empty") }
        return items
    }

    /// The element a `key=value` belongs to: the last item, or the bin whose `(` is the last item.
    private func propertyOwner(_ items: [Item]) -> Int? {
        guard let last = items.indices.last else { return nil }
        if case .element = items[last] { return last }
        if case .open = items[last], last > 0, case .element(let e) = items[last - 1], e.opensBin { return last - 1 }
        return nil
    }

    private func isOpen(_ item: Item?) -> Bool {
        if case .open? = item { return true }
        return false
    }

    /// `type/subtype` before any `=` or `,`: a caps filter.
    private func looksLikeCaps(at start: Int) -> Bool {
        var i = start
        if i < chars.count, chars[i] == "\"" { i += 1 }  // "video/x-raw, width=640" quoted whole
        var sawSlash = false
        while i < chars.count, !chars[i].isWhitespace, chars[i] != "!", chars[i] != "," {
            if chars[i] == "=" || chars[i] == "\"" || chars[i] == "." || chars[i] == ":" { return false }
            if chars[i] == "/" { sawSlash = true }
            i += 1
        }
        return sawSlash
    }

    /// Caps run to the next unquoted `!` (they may hold spaces and `(int)` types).
    private func scanCaps(from start: Int) throws(SyntaxError) -> Int {
        var i = start
        var quote: Character?
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                if c == "\\" { i += 2; continue }
                if c == q { quote = nil }
            } else if c == "\"" {
                quote = c
            } else if c == "!" {
                break
            }
            i += 1
        }
        if quote != nil { throw SyntaxError(offset: start, message: "unterminated quote in caps") }
        return i
    }

    private func scanWord(from start: Int) throws(SyntaxError) -> (ArraySlice<Character>, Int) {
        var i = start
        var quote: Character?
        var quoteStart = start
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                if c == "\\" { i += 2; continue }
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c; quoteStart = i
            } else if c.isWhitespace || c == "!" || c == "(" || c == ")" {
                break
            }
            i += 1
        }
        if quote != nil { throw SyntaxError(offset: quoteStart, message: "unterminated quote") }
        return (chars[start..<min(i, chars.count)], min(i, chars.count))
    }

    private func firstUnquoted(_ target: Character, in word: [Character]) -> Int? {
        var quote: Character?
        for (n, c) in word.enumerated() {
            if let q = quote { if c == q { quote = nil } } else if c == "\"" || c == "'" { quote = c } else if c == target { return n }
        }
        return nil
    }

    private func unquote(_ value: [Character]) -> String {
        guard let first = value.first, first == "\"" || first == "'", value.count >= 2, value.last == first else {
            return String(value)
        }
        var out = ""
        var i = 1
        while i < value.count - 1 {
            if value[i] == "\\", i + 1 < value.count - 1 { out.append(value[i + 1]); i += 2 } else { out.append(value[i]); i += 1 }
        }
        return out
    }
}

extension String {
    var trimmingTrailingWhitespace: String {
        var s = self
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return s
    }
}
