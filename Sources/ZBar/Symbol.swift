/// One code zbar found in an image: its kind, its exact bytes, how sure it is, and the
/// points of the image where it lies.
public struct Symbol: Sendable, Equatable {
    public var type: SymbolType
    /// The decoded data as zbar gives it (with `ImageScanner.Setting.binary`, the raw bytes).
    public var data: [UInt8]
    /// zbar_symbol_get_quality: for linear codes how many scan lines read it; 1 for QR codes.
    public var quality: Int
    /// zbar_symbol_get_loc_x/y: the outline's points, in pixels of the image scanned.
    public var points: [(x: Int, y: Int)]

    public init(type: SymbolType, data: [UInt8], quality: Int, points: [(x: Int, y: Int)]) {
        self.type = type
        self.data = data
        self.quality = quality
        self.points = points
    }

    public static func == (a: Symbol, b: Symbol) -> Bool {
        a.type == b.type && a.data == b.data && a.quality == b.quality
            && a.points.map(\.x) == b.points.map(\.x) && a.points.map(\.y) == b.points.map(\.y)
    }
}
