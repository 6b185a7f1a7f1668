/// `[String: Any]` trees as one line of JSON with sorted keys and unescaped slashes: what
/// Foundation's JSONSerialization wrote for the events' JSON lines (FoundationEssentials has
/// no JSONSerialization; issue 26).
public enum JSONText {
    /// Strings, booleans, integers, finite floating-point numbers, arrays and string-keyed
    /// dictionaries of them; anything else (and a NaN) is written as null.
    public static func line(_ value: Any) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: Any, to out: inout String) {
        switch value {
        case let text as String: quote(text, to: &out)
        case let flag as Bool: out += flag ? "true" : "false"
        case let number as any BinaryInteger: out += "\(number)"
        case let number as Double: out += number.isFinite ? decimal(number) : "null"
        case let number as Float: out += number.isFinite ? decimal(Double(number)) : "null"
        case let list as [Any]:
            out += "["
            for (i, item) in list.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case let object as [String: Any]:
            out += "{"
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                quote(key, to: &out)
                out += ":"
                write(object[key]!, to: &out)
            }
            out += "}"
        default: out += "null"
        }
    }

    /// The shortest text that reads back as the same number, without a ".0" on whole ones.
    private static func decimal(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return "\(Int64(number))" }
        return "\(number)"
    }

    private static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
