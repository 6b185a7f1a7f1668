import GLib
import Plumb
/// Finds the line of a group header or a key in INI text: GKeyFile parses but does not
/// report positions. Lines are read by GKeyFile's own rules (glib/gkeyfile.c): split at
/// `\n` only (a `\r` before it dropped), ASCII blanks (`g_ascii_isspace`: space, tab,
/// CR, LF, FF) skipped before a line and around a key, group and key names as it checks them.
/// Lines are read as Unicode scalars, as GLib reads bytes: a combining mark after `[` or `=`
/// must not hide it inside one Character.
struct ConfigLineLocator {
    private typealias Line = Substring.UnicodeScalarView
    /// The lines without their `\n` (and `\r\n`).
    private let lines: [Line]
    /// Every `key = value` line: (group, key, line). GKeyFile hides localized
    /// keys (`key[de]`), which Plumb does not support; this sees them.
    let keyLines: [(group: String, key: String, line: Int)]

    init(text: String) {
        // Unicode scalars, not Characters: "\r\n" is one Character and would not split at "\n".
        lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { scalars in
            var line = Line(scalars)
            if line.last == "\r" { line.removeLast() }
            return line
        }
        var current: String?
        var keyLines: [(String, String, Int)] = []
        for (i, line) in lines.enumerated() {
            if let name = Self.groupName(line) {
                current = name
            } else if let current, let key = Self.keyName(line) {
                keyLines.append((current, key, i + 1))
            }
        }
        self.keyLines = keyLines
    }

    /// The line of `[group]`; the last one when it is repeated (the repeat is an error
    /// found before anyone asks, see `repeatedGroup`).
    func line(ofGroup group: String) -> Int? {
        var found: Int?
        for (i, line) in lines.enumerated() where Self.groupName(line) == group { found = i + 1 }
        return found
    }

    func line(ofKey key: String, inGroup group: String) -> Int? {
        keyLines.last { $0.group == group && $0.key == key }?.line
    }

    /// A group header that appears a second time: GKeyFile would merge both silently.
    var repeatedGroup: (group: String, first: Int, again: Int)? {
        var seen: [String: Int] = [:]
        for (i, line) in lines.enumerated() {
            guard let name = Self.groupName(line) else { continue }
            if let first = seen[name] { return (name, first, i + 1) }
            seen[name] = i + 1
        }
        return nil
    }

    /// A key set a second time in its group: GKeyFile would keep the last value silently.
    var repeatedKey: (group: String, key: String, first: Int, again: Int)? {
        var seen: [String: Int] = [:]
        for (group, key, line) in keyLines {
            let id = group + "\n" + key
            if let first = seen[id] { return (group, key, first, line) }
            seen[id] = line
        }
        return nil
    }

    /// The first line that is neither blank, a comment, a valid group header nor a
    /// `key=value` with a valid key under a group: where GKeyFile's syntax error is.
    var firstInvalidLine: Int? {
        var seenGroup = false
        for (i, raw) in lines.enumerated() {
            let line = raw.drop(while: Self.isSpace)
            if line.isEmpty || line.first == "#" { continue }
            if let name = Self.groupName(raw) {
                guard Self.isValidGroupName(name) else { return i + 1 }
                seenGroup = true
                continue
            }
            guard seenGroup, let key = Self.keyName(raw), Self.isValidKeyName(key) else { return i + 1 }
        }
        return nil
    }

    /// `g_ascii_isspace`: unlike C's isspace, not the vertical tab.
    private static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0C}"
    }

    /// The group a header line opens (`g_key_file_line_is_group`): blanks before `[`, the
    /// name up to the first `]`, only spaces or tabs after it.
    private static func groupName(_ line: Line) -> String? {
        let t = line.drop(while: isSpace)
        guard t.first == "[", let close = t.firstIndex(of: "]") else { return nil }
        guard t[t.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" }) else { return nil }
        return String(String.UnicodeScalarView(t[t.index(after: t.startIndex)..<close]))
    }

    /// The key of a `key = value` line: before the first `=`, without the blanks around it
    /// (`g_key_file_parse_key_value_pair`); nil for a comment or a line without `=`.
    private static func keyName(_ line: Line) -> String? {
        let t = line.drop(while: isSpace)
        guard t.first != "#", let eq = t.firstIndex(of: "=") else { return nil }
        var key = t[..<eq]
        while let last = key.last, isSpace(last) { key.removeLast() }
        return String(String.UnicodeScalarView(key))
    }

    /// `g_key_file_is_group_name`: not empty, no brackets, no control characters.
    private static func isValidGroupName(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains { $0 == "[" || $0 == "]" || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// `g_key_file_is_key_name`: not empty, no `]`, and a `[` only to open a locale at the end.
    private static func isValidKeyName(_ key: String) -> Bool {
        let scalars = key.unicodeScalars
        guard let first = scalars.first, first != " " else { return false }
        guard let open = scalars.firstIndex(of: "[") else { return !scalars.contains("]") }
        let locale = scalars[scalars.index(after: open)...]
        return open != scalars.startIndex && locale.count >= 2 && locale.last == "]"
            && locale.dropLast().allSatisfy(isLocaleCharacter)
    }

    /// What a locale in `key[LOCALE]` is made of: ASCII letters, digits and `_ . @ -`.
    private static func isLocaleCharacter(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "_.@-".unicodeScalars.contains(c)
    }
}
