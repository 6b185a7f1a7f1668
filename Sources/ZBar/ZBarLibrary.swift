internal import CZBar
import Glibc

/// libzbar, opened the first time something scans (dlopen) instead of linked: zbar brings
/// X11, D-Bus and systemd's libraries with it, about 1.7 MiB resident in every `plumb` and
/// `plumb-serve` process, scanning or not (issue 26, bench/README.md "Memory").
///
/// Only the functions ImageScanner calls, with the signatures of zbar.h (0.23).
struct ZBarLibrary: Sendable {
    typealias Scanner = OpaquePointer
    typealias Image = OpaquePointer
    typealias SymbolRef = OpaquePointer

    let scannerCreate: @convention(c) () -> Scanner?
    let scannerDestroy: @convention(c) (Scanner?) -> Void
    let scannerSetConfig: @convention(c) (Scanner?, zbar_symbol_type_t, zbar_config_t, Int32) -> Int32
    let scanImage: @convention(c) (Scanner?, Image?) -> Int32
    let imageCreate: @convention(c) () -> Image?
    let imageDestroy: @convention(c) (Image?) -> Void
    let imageSetFormat: @convention(c) (Image?, UInt) -> Void
    let imageSetSize: @convention(c) (Image?, UInt32, UInt32) -> Void
    /// The last argument is zbar's cleanup handler; we always pass nil.
    let imageSetData: @convention(c) (Image?, UnsafeRawPointer?, UInt, OpaquePointer?) -> Void
    let imageFirstSymbol: @convention(c) (Image?) -> SymbolRef?
    let symbolNext: @convention(c) (SymbolRef?) -> SymbolRef?
    let symbolType: @convention(c) (SymbolRef?) -> zbar_symbol_type_t
    let symbolData: @convention(c) (SymbolRef?) -> UnsafePointer<CChar>?
    let symbolDataLength: @convention(c) (SymbolRef?) -> UInt32
    let symbolQuality: @convention(c) (SymbolRef?) -> Int32
    let symbolLocationSize: @convention(c) (SymbolRef?) -> UInt32
    let symbolLocationX: @convention(c) (SymbolRef?, UInt32) -> Int32
    let symbolLocationY: @convention(c) (SymbolRef?, UInt32) -> Int32

    /// The library's soname (libzbar0 on Debian).
    static let soname = "libzbar.so.0"

    /// Opened once for the process; the error says what is missing.
    static let shared: Result<ZBarLibrary, ZBarUnavailable> = open()

    private static func open() -> Result<ZBarLibrary, ZBarUnavailable> {
        // Never closed: the functions are used for the rest of the process.
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(ZBarUnavailable(reason: dlerror().map { String(cString: $0) } ?? "dlopen failed"))
        }
        func find<F>(_ name: String, as type: F.Type) throws(ZBarUnavailable) -> F {
            guard let symbol = dlsym(handle, name) else {
                throw ZBarUnavailable(reason: "\(soname) has no \(name)")
            }
            return unsafeBitCast(symbol, to: type)
        }
        do throws(ZBarUnavailable) {
            return .success(ZBarLibrary(
                scannerCreate: try find("zbar_image_scanner_create", as: (@convention(c) () -> Scanner?).self),
                scannerDestroy: try find("zbar_image_scanner_destroy", as: (@convention(c) (Scanner?) -> Void).self),
                scannerSetConfig: try find("zbar_image_scanner_set_config",
                                           as: (@convention(c) (Scanner?, zbar_symbol_type_t, zbar_config_t, Int32) -> Int32).self),
                scanImage: try find("zbar_scan_image", as: (@convention(c) (Scanner?, Image?) -> Int32).self),
                imageCreate: try find("zbar_image_create", as: (@convention(c) () -> Image?).self),
                imageDestroy: try find("zbar_image_destroy", as: (@convention(c) (Image?) -> Void).self),
                imageSetFormat: try find("zbar_image_set_format", as: (@convention(c) (Image?, UInt) -> Void).self),
                imageSetSize: try find("zbar_image_set_size", as: (@convention(c) (Image?, UInt32, UInt32) -> Void).self),
                imageSetData: try find("zbar_image_set_data",
                                       as: (@convention(c) (Image?, UnsafeRawPointer?, UInt, OpaquePointer?) -> Void).self),
                imageFirstSymbol: try find("zbar_image_first_symbol", as: (@convention(c) (Image?) -> SymbolRef?).self),
                symbolNext: try find("zbar_symbol_next", as: (@convention(c) (SymbolRef?) -> SymbolRef?).self),
                symbolType: try find("zbar_symbol_get_type", as: (@convention(c) (SymbolRef?) -> zbar_symbol_type_t).self),
                symbolData: try find("zbar_symbol_get_data", as: (@convention(c) (SymbolRef?) -> UnsafePointer<CChar>?).self),
                symbolDataLength: try find("zbar_symbol_get_data_length", as: (@convention(c) (SymbolRef?) -> UInt32).self),
                symbolQuality: try find("zbar_symbol_get_quality", as: (@convention(c) (SymbolRef?) -> Int32).self),
                symbolLocationSize: try find("zbar_symbol_get_loc_size", as: (@convention(c) (SymbolRef?) -> UInt32).self),
                symbolLocationX: try find("zbar_symbol_get_loc_x", as: (@convention(c) (SymbolRef?, UInt32) -> Int32).self),
                symbolLocationY: try find("zbar_symbol_get_loc_y", as: (@convention(c) (SymbolRef?, UInt32) -> Int32).self)))
        } catch {
            return .failure(error)
        }
    }
}

/// zbar could not be loaded: the library is missing or is not the zbar we know.
public struct ZBarUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { "zbar is not available (\(reason)); install libzbar0" }
}
