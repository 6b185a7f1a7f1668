import PlumbBase
import ZBar

/// A kind of barcode the scanner can read, by the name `--types` and `[scan] types` take.
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable {
    case qr, ean13, ean8, upca, upce, code128, code39, code93, i25, codabar, pdf417, databar, isbn10, isbn13

    /// zbar's kind of symbol.
    var zbarType: SymbolType {
        switch self {
        case .ean8: .ean8
        case .upce: .upce
        case .isbn10: .isbn10
        case .upca: .upca
        case .ean13: .ean13
        case .isbn13: .isbn13
        case .i25: .i25
        case .databar: .databar
        case .codabar: .codabar
        case .code39: .code39
        case .pdf417: .pdf417
        case .qr: .qr
        case .code93: .code93
        case .code128: .code128
        }
    }

    init?(zbarType: SymbolType) {
        guard let s = Self.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = s
    }

    /// What the scanner reads when no types are given.
    public static let defaults: Set<Symbology> = [.qr, .ean13, .ean8, .upca, .upce, .code128, .code39]

    /// "qr,ean13": the names, comma-separated; an unknown one is an error listing the known.
    public static func parseList(_ text: String) throws(CaptureError) -> Set<Symbology> {
        var out = Set<Symbology>()
        for name in text.split(separator: ",").map({ $0.trimmed.lowercased() }) where !name.isEmpty {
            guard let s = Symbology(rawValue: name) else {
                throw .invalidArgument("unknown barcode type \"\(name)\"; known: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            out.insert(s)
        }
        guard !out.isEmpty else { throw .invalidArgument("no barcode type given; known: \(allCases.map(\.rawValue).joined(separator: ", "))") }
        return out
    }
}
