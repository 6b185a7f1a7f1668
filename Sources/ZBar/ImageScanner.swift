internal import CZBar

/// zbar's decoder for whole images (zbar_image_scanner_t): the library GStreamer's `zbar`
/// element wraps, used directly because that element (1.22) reports neither where a code
/// lies nor its raw bytes and cannot choose symbologies.
///
/// Not thread-safe, as zbar's scanner is not: one owner scans at a time (`ScanOutput` keeps
/// it behind its lock).
public final class ImageScanner {
    /// A zbar_config_t setting.
    public struct Setting: Sendable, Equatable {
        let c: zbar_config_t
        /// ZBAR_CFG_ENABLE: whether the symbology is decoded.
        public static let enable = Setting(c: ZBAR_CFG_ENABLE)
        /// ZBAR_CFG_BINARY: the data as its raw bytes, not converted to text.
        public static let binary = Setting(c: ZBAR_CFG_BINARY)
    }

    private let scanner: OpaquePointer

    /// zbar_image_scanner_create; nil when zbar could not make one (out of memory).
    public init?() {
        guard let scanner = zbar_image_scanner_create() else { return nil }
        self.scanner = scanner
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// zbar_image_scanner_set_config; `.all` sets it for every symbology.
    public func set(_ setting: Setting, for type: SymbolType, to value: Int32) {
        _ = zbar_image_scanner_set_config(scanner, type.c, setting.c, value)
    }

    /// zbar_scan_image on an 8-bit grey image ('Y800') of `width` × `height` pixels, rows
    /// packed (`pixels.count` is `width * height`): the symbols found, in zbar's order.
    public func scan(gray pixels: UnsafeRawBufferPointer, width: Int, height: Int) -> [Symbol] {
        guard width > 0, height > 0, pixels.count >= width * height, let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, Self.fourccY800)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        // No cleanup handler: the pixels stay the caller's and outlive the image.
        zbar_image_set_data(image, pixels.baseAddress, UInt(width * height), nil)
        guard zbar_scan_image(scanner, image) > 0 else { return [] }
        var found: [Symbol] = []
        var next = zbar_image_first_symbol(image)
        while let symbol = next {
            defer { next = zbar_symbol_next(symbol) }
            let length = Int(zbar_symbol_get_data_length(symbol))
            let data = zbar_symbol_get_data(symbol).map { p in
                [UInt8](UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: length))
            } ?? []
            let points = (0..<zbar_symbol_get_loc_size(symbol)).map { i in
                (x: Int(zbar_symbol_get_loc_x(symbol, i)), y: Int(zbar_symbol_get_loc_y(symbol, i)))
            }
            found.append(Symbol(type: SymbolType(zbar_symbol_get_type(symbol)), data: data,
                                quality: Int(zbar_symbol_get_quality(symbol)), points: points))
        }
        return found
    }

    /// The 'Y800' fourcc (zbar_fourcc('Y','8','0','0')): 8-bit grey, what the scan branch's caps give (GRAY8).
    static let fourccY800: UInt = "Y800".utf8.reversed().reduce(0) { $0 << 8 | UInt($1) }
}
