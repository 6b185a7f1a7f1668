internal import CZBar
import Glibc

/// libzbar, loaded on first use (dlopen) rather than by the loader at start: only `plumb
/// scan` and a daemon that scans decode codes, and libzbar brings X11, D-Bus, libv4l, libjpeg
/// and libsystemd with it, about 1.7 MiB resident that every other command would map
/// (issue 26). The entry points ImageScanner calls, typed as in zbar.h.
struct ZBarLibrary: @unchecked Sendable {
    let imageScannerCreate: @convention(c) () -> OpaquePointer?
    let imageScannerDestroy: @convention(c) (OpaquePointer?) -> Void
    let imageScannerSetConfig: @convention(c) (OpaquePointer?, zbar_symbol_type_t, zbar_config_t, Int32) -> Int32
    let scanImage: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    let imageCreate: @convention(c) () -> OpaquePointer?
    let imageDestroy: @convention(c) (OpaquePointer?) -> Void
    let imageSetFormat: @convention(c) (OpaquePointer?, UInt) -> Void
    let imageSetSize: @convention(c) (OpaquePointer?, UInt32, UInt32) -> Void
    let imageSetData: @convention(c) (OpaquePointer?, UnsafeRawPointer?, UInt, OpaquePointer?) -> Void
    let imageFirstSymbol: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let symbolNext: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let symbolGetType: @convention(c) (OpaquePointer?) -> zbar_symbol_type_t
    let symbolGetData: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    let symbolGetDataLength: @convention(c) (OpaquePointer?) -> UInt32
    let symbolGetQuality: @convention(c) (OpaquePointer?) -> Int32
    let symbolGetLocSize: @convention(c) (OpaquePointer?) -> UInt32
    let symbolGetLocX: @convention(c) (OpaquePointer?, UInt32) -> Int32
    let symbolGetLocY: @convention(c) (OpaquePointer?, UInt32) -> Int32

    /// The library's file name (Debian's libzbar0, which libzbar-dev depends on).
    static let soname = "libzbar.so.0"

    /// Loaded once, on the first scanner, or why it cannot be.
    static let shared = Result { () throws(LoadError) in try load() }

    /// Why libzbar could not be used.
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    private static func load() throws(LoadError) -> ZBarLibrary {
        // Never closed: scanners may live until the process ends.
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadError(description: dlerror().map { String(cString: $0) } ?? "\(soname) not found")
        }
        func entry<F>(_ name: String) throws(LoadError) -> F {
            guard let symbol = dlsym(handle, name) else { throw LoadError(description: "\(soname) has no \(name)") }
            return unsafeBitCast(symbol, to: F.self)
        }
        return ZBarLibrary(
            imageScannerCreate: try entry("zbar_image_scanner_create"),
            imageScannerDestroy: try entry("zbar_image_scanner_destroy"),
            imageScannerSetConfig: try entry("zbar_image_scanner_set_config"),
            scanImage: try entry("zbar_scan_image"),
            imageCreate: try entry("zbar_image_create"),
            imageDestroy: try entry("zbar_image_destroy"),
            imageSetFormat: try entry("zbar_image_set_format"),
            imageSetSize: try entry("zbar_image_set_size"),
            imageSetData: try entry("zbar_image_set_data"),
            imageFirstSymbol: try entry("zbar_image_first_symbol"),
            symbolNext: try entry("zbar_symbol_next"),
            symbolGetType: try entry("zbar_symbol_get_type"),
            symbolGetData: try entry("zbar_symbol_get_data"),
            symbolGetDataLength: try entry("zbar_symbol_get_data_length"),
            symbolGetQuality: try entry("zbar_symbol_get_quality"),
            symbolGetLocSize: try entry("zbar_symbol_get_loc_size"),
            symbolGetLocX: try entry("zbar_symbol_get_loc_x"),
            symbolGetLocY: try entry("zbar_symbol_get_loc_y"))
    }
}
