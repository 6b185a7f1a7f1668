import GLib
import Plumb
/// What GKeyFile would take without a word, found before it sees the text: a NUL byte
/// (GLib ends the value there: `fps = 3\0 00` would be 3), bytes that are not UTF-8
/// (GLib's error names no line), and a group or a key written twice (GLib merges the
/// groups and keeps the last value). Each is an error at its line.
enum ConfigTextCheck {
    /// U+FEFF, which Windows editors write at the start of a UTF-8 file.
    static let byteOrderMark: Unicode.Scalar = "\u{FEFF}"

    /// The file's bytes without a leading UTF-8 byte-order mark (EF BB BF): accepted and
    /// skipped, so that columns count from the first real character.
    static func droppingByteOrderMark(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    /// NUL bytes and invalid UTF-8 in the raw bytes of a file.
    static func check(bytes: [UInt8], origin: ConfigError.Origin) throws(ConfigError) {
        var line = 1, column = 1
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
                i += 1
                continue
            }
            if b == 0 {
                throw ConfigError(origin: origin, line: line,
                                  message: "a NUL byte at column \(column): a config file is text, and GLib would end "
                                      + "the line's value there; remove it")
            }
            guard let length = sequenceLength(bytes, at: i) else {
                throw ConfigError(origin: origin, line: line,
                                  message: "not UTF-8 text at column \(column) (byte 0x"
                                      + String(b, radix: 16, uppercase: true) + "); save the file as UTF-8")
            }
            i += length
            column += 1
        }
    }

    /// A group or a key given twice: the first error, at the second one's line.
    static func checkRepeats(_ lines: ConfigLineLocator, origin: ConfigError.Origin) throws(ConfigError) {
        if let repeated = lines.repeatedGroup {
            throw ConfigError(origin: origin, line: repeated.again, group: repeated.group,
                              message: "[\(repeated.group)] appears again (first at line \(repeated.first)); "
                                  + "write each group once, with all its keys under it")
        }
        if let repeated = lines.repeatedKey {
            throw ConfigError(origin: origin, line: repeated.again, group: repeated.group, key: repeated.key,
                              message: "\(repeated.key) is set again (first at line \(repeated.first)); "
                                  + "set each key once")
        }
    }

    /// The length of the well-formed UTF-8 sequence at `i`, nil when it is not one
    /// (Unicode 15, table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
    private static func sequenceLength(_ bytes: [UInt8], at i: Int) -> Int? {
        let b = bytes[i]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch b {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return nil
        }
        guard i + length <= bytes.count, second.contains(bytes[i + 1]) else { return nil }
        for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return nil }
        return length
    }
}
