/// HTTP header fields in order, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (n, v) in fields { add(n, v) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`, any case.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    /// Appends a field (a name may appear more than once).
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy {
            $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
