/// A kind of barcode the scanner can read, by the name `--types` and `[scan] types` take.
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable {
    case qr, ean13, ean8, upca, upce, code128, code39, code93, i25, codabar, pdf417, databar, isbn10, isbn13

    /// zbar's zbar_symbol_type_t.
    var zbarType: Int32 {
        switch self {
        case .ean8: 8
        case .upce: 9
        case .isbn10: 10
        case .upca: 12
        case .ean13: 13
        case .isbn13: 14
        case .i25: 25
        case .databar: 34
        case .codabar: 38
        case .code39: 39
        case .pdf417: 57
        case .qr: 64
        case .code93: 93
        case .code128: 128
        }
    }

    init?(zbarType: Int32) {
        guard let s = Self.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = s
    }

    /// What the scanner reads when no types are given.
    public static let defaults: Set<Symbology> = [.qr, .ean13, .ean8, .upca, .upce, .code128, .code39]

    /// "qr,ean13": the names, comma-separated; an unknown one is an error listing the known.
    public static func parseList(_ text: String) throws(CaptureError) -> Set<Symbology> {
        var out = Set<Symbology>()
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let s = Symbology(rawValue: name) else {
                throw .invalidArgument("unknown barcode type \"\(name)\"; known: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            out.insert(s)
        }
        guard !out.isEmpty else { throw .invalidArgument("no barcode type given; known: \(allCases.map(\.rawValue).joined(separator: ", "))") }
        return out
    }
}
