/// Reads a gst-launch description the way GStreamer does — tokens as in its parse.l
/// (`LaunchTokenizer`), the rules of its grammar.y — to find the elements, properties,
/// caps and links an error may be about, with their offsets. GStreamer's parser still
/// builds the pipeline; this one has to accept what it accepts and place what it rejects.
struct LaunchLexer {
    struct Property {
        var key: String
        /// As GStreamer sets it: unquoted and unescaped.
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
        /// `bin.( ... )` or `( ... )`: the properties right after the `(` are the bin's.
        var opensBin = false
        /// A plain `( ... )`: a "bin" the user did not name as an element.
        var isImplicitBin = false
        /// `file:///x`, `http://...`: GStreamer makes a source or sink for the URI; `factory` holds it.
        var isURI = false
        var explicitName: String? { properties.last(where: { $0.key == "name" })?.value }
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

    /// The items in the order of the text; a syntax error where GStreamer's grammar finds one.
    func lex() throws(SyntaxError) -> [Item] {
        var reader = Reader(tokens: LaunchTokenizer(chars).tokens(), chars: chars)
        try reader.chainList()
        if let token = reader.peek {
            guard case .operatorCharacter(")") = token.kind else { throw reader.unexpected(token) }
            throw SyntaxError(offset: token.offset, message: "\")\" without a matching \"(\"")
        }
        if !reader.items.contains(where: { if case .element = $0 { true } else { false } }) {
            throw SyntaxError(offset: 0, message: "the pipeline description is empty")
        }
        return reader.items
    }
}

/// grammar.y by hand: a chain is elements (or bins) joined by links, may start with a URI
/// (a source) or a reference, and may end with a link to a URI (a sink) or a reference.
private struct Reader {
    let tokens: [LaunchToken]
    let chars: [Character]
    var position = 0
    var items: [LaunchLexer.Item] = []
    typealias SyntaxError = LaunchLexer.SyntaxError

    init(tokens: [LaunchToken], chars: [Character]) {
        self.tokens = tokens
        self.chars = chars
    }

    var peek: LaunchToken? { position < tokens.count ? tokens[position] : nil }

    /// chains up to the end, or to the `)` of the bin being read.
    mutating func chainList() throws(SyntaxError) {
        while let token = peek {
            if case .operatorCharacter(")") = token.kind { return }
            try chain()
        }
    }

    /// openchain, then optionally `link URI` or `link reference`, which close it.
    mutating func chain() throws(SyntaxError) {
        let first = peek!
        var pendingPads: LaunchToken?
        var endsInReference: LaunchToken?
        switch first.kind {
        case .uri(let uri):
            position += 1
            items.append(.element(LaunchLexer.ElementItem(factory: uri, offset: first.offset, endOffset: first.end,
                                                          isURI: true)))
        case .reference(let name):
            position += 1
            items.append(.reference(name: name, offset: first.offset))
            morePads()
            endsInReference = first
        case .link:
            throw SyntaxError(offset: first.offset, message: "a link \"\(chars[first.offset])\" with nothing before it")
        default:
            try elementary()
            pendingPads = pads()
        }
        while let token = peek, case .link = token.kind {
            try link(token)
            guard let next = peek else {
                throw SyntaxError(offset: token.offset, message: "a link \"\(chars[token.offset])\" with nothing after it")
            }
            switch next.kind {
            case .uri(let uri):
                position += 1
                items.append(.element(LaunchLexer.ElementItem(factory: uri, offset: next.offset, endOffset: next.end,
                                                              isURI: true)))
                if let after = peek, case .link = after.kind {
                    throw SyntaxError(offset: after.offset, message: "nothing can follow the URI \(uri): after a link it is a sink")
                }
                return
            case .reference(let name):
                position += 1
                items.append(.reference(name: name, offset: next.offset))
                morePads()
                return
            default:
                _ = pads()
                try elementary()
                pendingPads = pads()
                endsInReference = nil
            }
        }
        if let reference = endsInReference {
            let name = text(reference)
            throw SyntaxError(offset: reference.offset, message: "the reference \"\(name)\" is not linked "
                                + "(\"\(name) ! ...\" or \"... ! \(name)\")")
        }
        if let pads = pendingPads {
            throw SyntaxError(offset: pads.offset, message: "the pad \"\(text(pads))\" is not followed by a link \"!\"")
        }
    }

    /// An element with its properties and presets, or a bin.
    mutating func elementary() throws(SyntaxError) {
        guard let token = peek else { return }
        switch token.kind {
        case .identifier(let factory):
            position += 1
            var element = LaunchLexer.ElementItem(factory: factory, offset: token.offset, endOffset: token.end)
            while let next = peek {
                if case .assignment(let key, let value, let valueOffset, let open) = next.kind {
                    element.properties.append(try property(key, value, at: next.offset, valueOffset, open: open))
                } else if case .preset = next.kind {
                    position += 1
                } else {
                    break
                }
            }
            items.append(.element(element))
        case .binOpener(let factory):
            try bin(LaunchLexer.ElementItem(factory: factory, offset: token.offset, endOffset: token.end, opensBin: true),
                    open: token.end - 1)
        case .operatorCharacter("("):
            try bin(LaunchLexer.ElementItem(factory: "bin", offset: token.offset, endOffset: token.end, opensBin: true,
                                            isImplicitBin: true), open: token.offset)
        default:
            throw unexpected(token)
        }
    }

    /// `( assignments chains )`: the bin, its `(`, what it holds, its `)`.
    mutating func bin(_ opener: LaunchLexer.ElementItem, open: Int) throws(SyntaxError) {
        position += 1
        var element = opener
        while let next = peek, case .assignment(let key, let value, let valueOffset, let open) = next.kind {
            element.properties.append(try property(key, value, at: next.offset, valueOffset, open: open))
        }
        items.append(.element(element))
        items.append(.open(offset: open))
        let before = items.count
        try chainList()
        guard let close = peek else { throw SyntaxError(offset: open, message: "\"(\" without a matching \")\"") }
        if !items[before...].contains(where: { if case .element = $0 { true } else { false } }) {
            throw SyntaxError(offset: opener.offset, message: "an empty bin: put at least one element between \"(\" and \")\"")
        }
        position += 1
        items.append(.close(offset: close.offset))
    }

    mutating func property(_ key: String, _ value: String, at offset: Int, _ valueOffset: Int, open: Bool)
        throws(SyntaxError) -> LaunchLexer.Property
    {
        if open { throw SyntaxError(offset: valueOffset, message: "unterminated quote in the value of \"\(key)\"") }
        position += 1
        return LaunchLexer.Property(key: key, value: value, keyOffset: offset, valueOffset: valueOffset)
    }

    /// `! caps !` becomes link, caps, link; a plain `!` or `:` one link.
    mutating func link(_ token: LaunchToken) throws(SyntaxError) {
        guard case .link(let caps, let capsOffset, let closing) = token.kind else { return }
        position += 1
        items.append(.link(offset: token.offset))
        if let caps, let closing {
            items.append(.caps(text: caps, offset: capsOffset))
            items.append(.link(offset: closing))
        }
        if let next = peek, case .link = next.kind {
            throw SyntaxError(offset: next.offset, message: "two links in a row: an element is missing between them")
        }
    }

    /// `.pad[,pad...]`, which names the pads of the next link; the first pad token if any.
    mutating func pads() -> LaunchToken? {
        guard let token = peek, case .padReference = token.kind else { return nil }
        position += 1
        morePads()
        return token
    }

    /// `,pad,pad` after a pad or a reference.
    mutating func morePads() {
        while position + 1 < tokens.count, case .operatorCharacter(",") = tokens[position].kind,
              case .identifier = tokens[position + 1].kind {
            position += 2
        }
    }

    func text(_ token: LaunchToken) -> String { String(chars[token.offset..<token.end]) }

    /// What a token out of place most likely means.
    func unexpected(_ token: LaunchToken) -> SyntaxError {
        switch token.kind {
        case .assignment(let key, _, _, _):
            return SyntaxError(offset: token.offset, message: "property \"\(key)\" is not after an element")
        case .other("\"") where LaunchTokenizer(Array(chars[(token.offset + 1)...])).startsWithMimeType:
            let end = chars[(token.offset + 1)...].firstIndex(of: "\"") ?? chars.count
            return SyntaxError(offset: token.offset, message: "caps must not be quoted here (quotes are for the shell): write "
                                + String(chars[(token.offset + 1)..<end]))
        case .operatorCharacter("=") where position > 0 && { if case .identifier = tokens[position - 1].kind { true } else { false } }():
            let key = text(tokens[position - 1])
            return SyntaxError(offset: token.offset, message: "\"\(key)=\" has no value (an empty one is \(key)=\"\")")
        case .operatorCharacter(")"):
            return SyntaxError(offset: token.offset, message: "\")\" without a matching \"(\"")
        case .padReference:
            return SyntaxError(offset: token.offset, message: "the pad \"\(text(token))\" is not followed by a link \"!\"")
        default:
            return SyntaxError(offset: token.offset, message: "unexpected \"\(text(token))\"")
        }
    }
}

extension LaunchTokenizer {
    /// `type/subtype` at the start: caps someone quoted.
    var startsWithMimeType: Bool {
        guard let slash = chars.firstIndex(of: "/"), slash > 0, slash + 1 < chars.count else { return false }
        return chars[..<slash].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            && (chars[slash + 1].isLetter || chars[slash + 1].isNumber)
    }
}
