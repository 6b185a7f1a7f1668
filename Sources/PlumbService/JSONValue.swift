import FoundationEssentials
import PlumbBase

/// A JSON document as it was sent, read by JSONDecoder: numbers apart from `true` and
/// `false` (what JSONSerialization, which FoundationEssentials lacks, gave as [String: Any]).
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let flag = try? value.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else if let text = try? value.decode(String.self) {
            self = .string(text)
        } else if let list = try? value.decode([JSONValue].self) {
            self = .array(list)
        } else {
            self = .object(try value.decode([String: JSONValue].self))
        }
    }

    /// The document in `data`; nil when it is not JSON.
    static func parse(_ data: Data) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: data) }

    /// Written back as one line (JSONText), for an error message that quotes what was sent.
    var line: String { JSONText.line(any) }

    private var any: Any {
        switch self {
        case .null: return Optional<Int>.none as Any
        case .bool(let flag): return flag
        case .number(let number): return number
        case .string(let text): return text
        case .array(let list): return list.map(\.any)
        case .object(let object): return object.mapValues(\.any)
        }
    }
}
