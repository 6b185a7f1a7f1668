import Foundation

/// zbar's decoder library (libzbar0, which Debian's gstreamer1.0-plugins-bad depends on for
/// its `zbar` element), loaded at run time. The `zbar` element of GStreamer 1.22 reports
/// neither where a code lies nor its raw bytes and cannot choose symbologies, so the scan
/// branch hands its frames to the library the element wraps: the same decoder, with the
/// symbols' corners (`zbar_symbol_get_loc_x/y`) and exact bytes.
final class ZBarLibrary: @unchecked Sendable {  // immutable function pointers once loaded
    typealias Scanner = OpaquePointer
    typealias Image = OpaquePointer
    typealias Symbol = OpaquePointer

    let scannerCreate: @convention(c) () -> Scanner?
    let scannerDestroy: @convention(c) (Scanner) -> Void
    let setConfig: @convention(c) (Scanner, Int32, Int32, Int32) -> Int32
    let imageCreate: @convention(c) () -> Image?
    let imageDestroy: @convention(c) (Image) -> Void
    let setFormat: @convention(c) (Image, UInt) -> Void
    let setSize: @convention(c) (Image, UInt32, UInt32) -> Void
    let setData: @convention(c) (Image, UnsafeRawPointer?, UInt, UnsafeRawPointer?) -> Void
    let scanImage: @convention(c) (Scanner, Image) -> Int32
    let firstSymbol: @convention(c) (Image) -> Symbol?
    let nextSymbol: @convention(c) (Symbol) -> Symbol?
    let symbolType: @convention(c) (Symbol) -> Int32
    let symbolData: @convention(c) (Symbol) -> UnsafePointer<CChar>?
    let symbolDataLength: @convention(c) (Symbol) -> UInt32
    let symbolQuality: @convention(c) (Symbol) -> Int32
    let locSize: @convention(c) (Symbol) -> UInt32
    let locX: @convention(c) (Symbol, UInt32) -> Int32
    let locY: @convention(c) (Symbol, UInt32) -> Int32

    /// zbar_config_t values used here.
    static let configEnable: Int32 = 0
    static let configBinary: Int32 = 4
    /// The 'Y800' fourcc: 8-bit grey, what the branch's caps give (GRAY8).
    static let fourccY800: UInt = 0x3030_3859

    /// The library, or why it cannot be loaded.
    static let shared: Result<ZBarLibrary, CaptureError> = {
        guard let handle = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.invalidArgument("scanning needs libzbar0 (installed with gstreamer1.0-plugins-bad): \(why)"))
        }
        do throws(CaptureError) {
            return .success(try ZBarLibrary(handle))
        } catch {
            return .failure(error)
        }
    }()

    private init(_ h: UnsafeMutableRawPointer) throws(CaptureError) {
        func load<T>(_ name: String) throws(CaptureError) -> T {
            guard let p = dlsym(h, name) else { throw .invalidArgument("libzbar has no \(name)") }
            return unsafeBitCast(p, to: T.self)
        }
        scannerCreate = try load("zbar_image_scanner_create")
        scannerDestroy = try load("zbar_image_scanner_destroy")
        setConfig = try load("zbar_image_scanner_set_config")
        imageCreate = try load("zbar_image_create")
        imageDestroy = try load("zbar_image_destroy")
        setFormat = try load("zbar_image_set_format")
        setSize = try load("zbar_image_set_size")
        setData = try load("zbar_image_set_data")
        scanImage = try load("zbar_scan_image")
        firstSymbol = try load("zbar_image_first_symbol")
        nextSymbol = try load("zbar_symbol_next")
        symbolType = try load("zbar_symbol_get_type")
        symbolData = try load("zbar_symbol_get_data")
        symbolDataLength = try load("zbar_symbol_get_data_length")
        symbolQuality = try load("zbar_symbol_get_quality")
        locSize = try load("zbar_symbol_get_loc_size")
        locX = try load("zbar_symbol_get_loc_x")
        locY = try load("zbar_symbol_get_loc_y")
    }
}
