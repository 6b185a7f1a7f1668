internal import CZBar

/// A kind of barcode zbar decodes (zbar_symbol_type_t), read from its C constant.
public struct SymbolType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ type: zbar_symbol_type_t) { rawValue = Int32(bitPattern: type.rawValue) }

    /// ZBAR_NONE: in `ImageScanner.set(_:for:to:)`, every symbology at once.
    public static let all = Self(ZBAR_NONE)
    /// ZBAR_EAN8
    public static let ean8 = Self(ZBAR_EAN8)
    /// ZBAR_UPCE
    public static let upce = Self(ZBAR_UPCE)
    /// ZBAR_ISBN10
    public static let isbn10 = Self(ZBAR_ISBN10)
    /// ZBAR_UPCA
    public static let upca = Self(ZBAR_UPCA)
    /// ZBAR_EAN13
    public static let ean13 = Self(ZBAR_EAN13)
    /// ZBAR_ISBN13
    public static let isbn13 = Self(ZBAR_ISBN13)
    /// ZBAR_I25: interleaved 2 of 5.
    public static let i25 = Self(ZBAR_I25)
    /// ZBAR_DATABAR: GS1 DataBar (RSS).
    public static let databar = Self(ZBAR_DATABAR)
    /// ZBAR_CODABAR
    public static let codabar = Self(ZBAR_CODABAR)
    /// ZBAR_CODE39
    public static let code39 = Self(ZBAR_CODE39)
    /// ZBAR_PDF417
    public static let pdf417 = Self(ZBAR_PDF417)
    /// ZBAR_QRCODE
    public static let qr = Self(ZBAR_QRCODE)
    /// ZBAR_CODE93
    public static let code93 = Self(ZBAR_CODE93)
    /// ZBAR_CODE128
    public static let code128 = Self(ZBAR_CODE128)

    var c: zbar_symbol_type_t { zbar_symbol_type_t(rawValue: UInt32(bitPattern: rawValue)) }
}
