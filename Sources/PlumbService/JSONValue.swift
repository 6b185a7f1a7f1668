import FoundationEssentials

/// A JSON document as it was sent, read by JSONDecoder: numbers apart from `true` and
/// `false` (what JSONSerialization, which FoundationEssentials lacks, gave as [String: Any]).
enum JSONValue: Codable, Equatable {
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

    /// Written back as one line, for an error message that quotes what was sent.
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .null: try value.encodeNil()
        case .bool(let flag): try value.encode(flag)
        case .number(let number): try value.encode(number)
        case .string(let text): try value.encode(text)
        case .array(let list): try value.encode(list)
        case .object(let object): try value.encode(object)
        }
    }
}
