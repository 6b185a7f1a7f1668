/// The words a bash script runs as commands: the first word of each simple command (after
/// assignments), at the start of a line, after `;` `|` `&` `{` `(` or a keyword such as
/// `then` or `do`, and inside `$(...)` and backquotes, also within double quotes.
/// Quoted text, `$((...))` arithmetic, `${...}` and comments are not commands.
/// Functions the script defines are left out; the caller leaves out bash's builtins.
enum ShellCommandWords {
    struct Word: Equatable {
        var name: String
        var line: Int
    }

    /// Words after which the next word is a command again.
    static let keywords: Set<String> = ["if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                                        "for", "in", "case", "esac", "select", "function", "time", "!", "{", "}"]

    static func commands(in script: String) -> [Word] {
        let functions = Set(script.components(separatedBy: "\n").compactMap { line -> String? in
            guard let m = line.firstMatch(of: /^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)/) else { return nil }
            return String(m.1)
        })
        var scanner = Scanner(Array(script.unicodeScalars))
        scanner.run()
        return scanner.words.filter { !functions.contains($0.name) && !keywords.contains($0.name) }
    }

    private struct Scanner {
        let s: [Unicode.Scalar]
        var i = 0
        var line = 1
        var words: [Word] = []
        /// Whether the next word is in command position.
        var atCommand = true

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }
        mutating func advance() { if s[i] == "\n" { line += 1 }; i += 1 }

        mutating func run() {
            while peek() != nil { step(closing: nil) }
        }

        /// One token of unquoted shell text; returns true at `closing` (the end of `$(...)`).
        @discardableResult
        mutating func step(closing: Unicode.Scalar?) -> Bool {
            guard let c = peek() else { return true }
            if let closing, c == closing { advance(); atCommand = false; return true }
            switch c {
            case "\n", ";", "|", "&", "(", "{", "}", ")":
                advance()
                atCommand = true
            case " ", "\t":
                advance()
            case "\\":
                advance(); if peek() != nil { advance() }
            case "#":
                while let d = peek(), d != "\n" { advance() }
            case "'":
                singleQuoted()
                atCommand = false
            case "\"":
                doubleQuoted()
                atCommand = false
            case "`":
                advance()
                atCommand = true
                while !step(closing: "`") {}
            case "$":
                dollar()
                atCommand = false
            case "<", ">":
                // A redirection's target is not a command: read it as a word and drop it.
                while let d = peek(), d == "<" || d == ">" || d == "&" { advance() }
                while let d = peek(), d == " " { advance() }
                let keep = atCommand
                _ = word()
                atCommand = keep
            default:
                let w = word()
                if w.name.isEmpty { if peek() != nil { advance() }; return false }
                if atCommand {
                    if w.name.firstMatch(of: /^[A-Za-z_][A-Za-z0-9_]*=/) != nil || w.name.allSatisfy(\.isNumber) {
                        // An assignment before the command (or a descriptor number of a redirection).
                    } else if w.name == "for" || w.name == "select" || w.name == "case" {
                        // `for NAME in WORDS`: no command until the `;` or the line's end.
                        atCommand = false
                    } else if !keywords.contains(w.name) {
                        words.append(w)
                        atCommand = false
                    }
                }
            }
            return false
        }

        /// An unquoted word up to a space or an operator; quotes and `$` inside it are skipped.
        mutating func word() -> Word {
            let start = line
            var name = ""
            while let c = peek() {
                if " \t\n;|&(){}<>`".unicodeScalars.contains(c) { break }
                if c == "'" { singleQuoted(); name += "'"; continue }
                if c == "\"" { doubleQuoted(); name += "\""; continue }
                if c == "$" { dollar(); name += "$"; continue }
                if c == "\\" { advance(); if peek() != nil { name.unicodeScalars.append(s[i]); advance() }; continue }
                name.unicodeScalars.append(c)
                advance()
            }
            return Word(name: name, line: start)
        }

        mutating func singleQuoted() {
            advance()
            while let c = peek(), c != "'" { advance() }
            if peek() != nil { advance() }
        }

        /// Text in double quotes: only `$(...)` and backquotes in it run commands.
        mutating func doubleQuoted() {
            advance()
            while let c = peek(), c != "\"" {
                if c == "\\" { advance(); if peek() != nil { advance() }; continue }
                if c == "$" { dollar(); continue }
                if c == "`" {
                    advance()
                    let saved = atCommand
                    atCommand = true
                    while !step(closing: "`") {}
                    atCommand = saved
                    continue
                }
                advance()
            }
            if peek() != nil { advance() }
        }

        /// `$(...)` runs commands; `$((...))`, `${...}` and `$NAME` do not.
        mutating func dollar() {
            advance()
            if peek() == "(" && peek(1) == "(" {
                var depth = 0
                while let c = peek() {
                    if c == "(" { depth += 1 }
                    if c == ")" { depth -= 1; if depth == 0 { advance(); return } }
                    advance()
                }
            } else if peek() == "(" {
                advance()
                let saved = atCommand
                atCommand = true
                while !step(closing: ")") {}
                atCommand = saved
            } else if peek() == "{" {
                while let c = peek(), c != "}" { advance() }
                if peek() != nil { advance() }
            } else {
                while let c = peek(), c.properties.isAlphabetic || ("0"..."9").contains(c) || "_@#?*!$-".unicodeScalars.contains(c) {
                    advance()
                }
            }
        }
    }
}
