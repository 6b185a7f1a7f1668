/// One token of a gst-launch description, cut as GStreamer 1.22's own lexer
/// (gst/parse/parse.l) cuts it: at each place the longest of its patterns wins, the
/// earlier pattern on a tie. Offsets count characters of the resolved text.
struct LaunchToken: Equatable {
    enum Kind: Equatable {
        /// `key=value`, spaces allowed around `=`. The value as GStreamer hands it to the
        /// property: outer double quotes dropped, backslashes outside quotes removed.
        case assignment(key: String, value: String, valueOffset: Int, openQuote: Bool)
        /// `@preset=NAME`.
        case preset(String)
        /// `.pad`
        case padReference(String)
        /// `element.` or `element.pad`
        case reference(element: String)
        /// `factory.(` (spaces allowed around the `.`): a bin of that factory.
        case binOpener(factory: String)
        case identifier(String)
        /// `!` or `:` (link all pads), with the caps of `! caps !` when there are some.
        case link(caps: String?, capsOffset: Int, closingOffset: Int?)
        /// `scheme://...` or `/path`: an element made for the URI. Unescaped.
        case uri(String)
        /// `( ) { } . , ; =`
        case operatorCharacter(Character)
        /// Anything else: flex hands it to the grammar as itself, which rejects it.
        case other(Character)
    }

    var kind: Kind
    var offset: Int
    /// One past the last character.
    var end: Int
}

/// The lexer: `LaunchTokenizer(chars).tokens()`.
struct LaunchTokenizer {
    let chars: [Character]

    init(_ chars: [Character]) { self.chars = chars }

    func tokens() -> [LaunchToken] {
        var out: [LaunchToken] = []
        var p = 0
        while p < chars.count {
            if isSpace(p) { p += 1; continue }
            let token = longest(at: p)
            out.append(token)
            p = token.end
        }
        return out
    }

    // MARK: - The patterns, in parse.l's order

    /// Every pattern that matches at `p`, with its length; the longest, first on a tie.
    private func longest(at p: Int) -> LaunchToken {
        var best: (length: Int, make: () -> LaunchToken.Kind)?
        func offer(_ length: Int, _ make: @escaping () -> LaunchToken.Kind) {
            if length > 0, length > (best?.length ?? 0) { best = (length, make) }
        }
        let ident = identifierLength(p)
        // {_identifier}{_assign}{_string}
        if ident > 0, let (valueStart, valueLength) = assignedString(after: p + ident) {
            offer(valueStart + valueLength - p) {
                let key = String(chars[p..<(p + ident)])
                let (value, open) = Self.unescapeAssigned(Array(chars[valueStart..<(valueStart + valueLength)]))
                return .assignment(key: key, value: value, valueOffset: valueStart, openQuote: open)
            }
        }
        // @preset{_assign}{_string}
        let preset = Array("@preset")
        if p + preset.count <= chars.count, Array(chars[p..<(p + preset.count)]) == preset,
           let (valueStart, valueLength) = assignedString(after: p + preset.count) {
            offer(valueStart + valueLength - p) {
                .preset(Self.unescape(Array(chars[valueStart..<(valueStart + valueLength)])).text)
            }
        }
        // "."{_identifier}
        if chars[p] == ".", case let n = identifierLength(p + 1), n > 0 {
            offer(1 + n) { .padReference(String(chars[(p + 1)..<(p + 1 + n)])) }
        }
        // {_identifier}"."{_identifier}?
        if ident > 0, at(p + ident) == "." {
            offer(ident + 1 + identifierLength(p + ident + 1)) { .reference(element: String(chars[p..<(p + ident)])) }
        }
        // {_identifier}[[:space:]]*"."[[:space:]]*"("
        if ident > 0 {
            var q = skipSpaces(p + ident)
            if at(q) == "." {
                q = skipSpaces(q + 1)
                if at(q) == "(" { offer(q + 1 - p) { .binOpener(factory: String(chars[p..<(p + ident)])) } }
            }
        }
        offer(ident) { .identifier(String(chars[p..<(p + ident)])) }
        if chars[p] == "!" || chars[p] == ":" {
            let (length, caps) = link(at: p)
            offer(length) { .link(caps: caps.map { String(chars[$0]) }, capsOffset: caps?.lowerBound ?? p,
                                  closingOffset: caps == nil ? nil : p + length - 1) }
        }
        offer(uriLength(p)) { .uri(Self.unescape(Array(chars[p..<(p + uriLength(p))])).text) }
        if "(){}.!:,;=".contains(chars[p]) { offer(1) { .operatorCharacter(chars[p]) } }
        offer(1) { .other(chars[p]) }
        let (length, make) = best!
        return LaunchToken(kind: make(), offset: p, end: p + length)
    }

    /// `[[:space:]]*=[[:space:]]*{_string}` from `q`: where the string starts and its length.
    private func assignedString(after q: Int) -> (Int, Int)? {
        var i = skipSpaces(q)
        guard at(i) == "=" else { return nil }
        i = skipSpaces(i + 1)
        let n = stringLength(i)
        return n > 0 ? (i, n) : nil
    }

    /// `[[:alnum:]_][[:alnum:]\-_%:]*`
    private func identifierLength(_ p: Int) -> Int {
        guard let c = at(p), isAlnum(c) || c == "_" else { return 0 }
        var i = p + 1
        while let c = at(i), isAlnum(c) || "-_%:".contains(c) { i += 1 }
        return i - p
    }

    /// `{_char}+`, a double-quoted or a single-quoted string, whichever is longest.
    /// A bare string runs over backslash-escaped spaces (not newlines).
    private func stringLength(_ p: Int) -> Int {
        var i = p
        while let c = at(i) {
            if isSpace(i), c == "\n" || i == p || chars[i - 1] != "\\" { break }
            i += 1
        }
        return max(i - p, quotedLength(p, "\""), quotedLength(p, "'"))
    }

    /// `"([^"]|\\")*"`: a quote after a backslash may close the string or be part of it.
    private func quotedLength(_ p: Int, _ quote: Character) -> Int {
        guard at(p) == quote else { return 0 }
        var end = 0
        var i = p + 1
        while let c = at(i) {
            if c == quote {
                end = i + 1 - p
                if chars[i - 1] != "\\" || i - 1 == p { break }
            }
            i += 1
        }
        return end
    }

    /// `[!:]`, or `[!:] caps [!:]` with caps `type/subtype...` running to the last link
    /// character before the first unescaped `!` (a `;` must start another structure).
    private func link(at p: Int) -> (Int, Range<Int>?) {
        let start = skipSpaces(p + 1)
        let type = mimeTypeLength(start)
        guard type > 0 else { return (1, nil) }
        var last: Int?
        var i = start + type
        while let c = at(i) {
            if c == "!" {
                last = i
                if chars[i - 1] != "\\" { break }
            } else if c == ":" {
                last = i
            } else if c == ";", chars[i - 1] != "\\", chars[i - 1] != "," {
                let next = skipSpaces(i + 1)
                let more = mimeTypeLength(next)
                guard more > 0 else { break }
                i = next + more
                continue
            }
            i += 1
        }
        guard let last else { return (1, nil) }
        var capsEnd = last
        while capsEnd > start, isSpace(capsEnd - 1) { capsEnd -= 1 }
        return (last + 1 - p, start..<capsEnd)
    }

    /// `[[:alnum:]-]+/[[:alnum:]-]+`
    private func mimeTypeLength(_ p: Int) -> Int {
        var i = p
        while let c = at(i), isAlnum(c) || c == "-" { i += 1 }
        guard i > p, at(i) == "/" else { return 0 }
        var j = i + 1
        while let c = at(j), isAlnum(c) || c == "-" { j += 1 }
        return j > i + 1 ? j - p : 0
    }

    /// `{_protocol}://{_string}?` or `[".{_identifier}]?/{_string}` (flex reads the bracket
    /// as a set of characters: an absolute path, or one of them before a `/`).
    private func uriLength(_ p: Int) -> Int {
        var best = 0
        if let c = at(p), c.isASCII, c.isLetter {
            var i = p + 1
            while let c = at(i), isAlnum(c) || "+,-.".contains(c) { i += 1 }
            if at(i) == ":", at(i + 1) == "/", at(i + 2) == "/" { best = i + 3 - p + stringLength(i + 3) }
        }
        if at(p) == "/" {
            let n = stringLength(p + 1)
            if n > 0 { best = max(best, 1 + n) }
        }
        if let c = at(p), "\".{_identifr}".contains(c), at(p + 1) == "/" {
            let n = stringLength(p + 2)
            if n > 0 { best = max(best, 2 + n) }
        }
        return best
    }

    // MARK: - Characters

    private func at(_ i: Int) -> Character? { i >= 0 && i < chars.count ? chars[i] : nil }

    /// `[[:space:]]` in the C locale.
    private func isSpace(_ i: Int) -> Bool {
        guard let c = at(i) else { return false }
        return c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0B}" || c == "\u{0C}"
    }

    private func skipSpaces(_ p: Int) -> Int {
        var i = p
        while isSpace(i) { i += 1 }
        return i
    }

    private func isAlnum(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber) }

    // MARK: - Values

    /// What GStreamer sets a property from (gst_parse_split_assignment): the outer double
    /// quotes dropped when the value starts and ends with one, then unescaped. `open` when
    /// a double quote inside is never closed.
    static func unescapeAssigned(_ value: [Character]) -> (text: String, open: Bool) {
        var v = value
        if v.count >= 2, v.first == "\"", v.last == "\"" { v = Array(v.dropFirst().dropLast()) }
        return unescape(v)
    }

    /// gst_parse_unescape: outside double quotes a backslash keeps the next character
    /// as it is; inside them everything is kept, backslashes too (the caps or structure
    /// parser reads those).
    static func unescape(_ value: [Character]) -> (text: String, open: Bool) {
        var out = ""
        var inQuotes = false
        var i = 0
        while i < value.count {
            let c = value[i]
            if c == "\\", !inQuotes {
                i += 1
                guard i < value.count else { break }
            } else if c == "\"", !inQuotes || value[i - 1] != "\\" {
                inQuotes.toggle()
            }
            out.append(value[i])
            i += 1
        }
        return (out, inQuotes)
    }
}
