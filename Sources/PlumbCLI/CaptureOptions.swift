import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbRotation

/// The options `plumb photo` and `plumb record` share: the camera and the frame size,
/// and the value parsers that say what to fix.
struct CaptureOptions {
    /// `--camera` as given; nil means the first camera found.
    var camera: String?
    var size: VideoSize
    /// `--zoom F`: the digital zoom from the first frame (1 to 8).
    var zoom: Double?
    /// `--control NAME=VALUE` (repeatable): set on the camera once it is open.
    var controls: CameraControlRequest?

    static let defaultSize = VideoSize(width: 1280, height: 720)

    static let help = """
          --camera NAME|PATH|test
                           the camera: a name or its start (as `plumb devices` lists it), a
                           device path (/dev/video0), libcamera:ID (a libcamera camera, as
                           `plumb devices` lists it), or `test` for the moving test pattern
                           (`test:smpte` for scrolling bars, `test:mjpeg` sent as MJPEG,
                           `test:clock` with the wall clock coded in the picture),
                           or image:FILE (a PNG or JPEG shown as a live camera);
                           default: the first camera found
          --size WxH       the frame size (default 1280x720); a camera that lacks it gives
                           the nearest it has, and the facts say what was used
          --zoom F         digital zoom, 1 to 8 (default 1): the centre of the picture, cropped
                           and scaled back to the frame size
          --control NAME=VALUE
                           set a camera control once the camera is open (repeatable; all
                           are checked first and set together or not at all): a plain name
                           (exposure=manual, exposure-time=0.01, focus=manual, torch=on ...)
                           or the driver's name as `plumb controls` lists it; V4L2 cameras only
        """

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> CaptureOptions {
        let camera = try arguments.option("--camera")
        if camera?.isEmpty == true { throw UsageError("--camera needs a name, a device path or `test`") }
        var size = defaultSize
        if let text = try arguments.option("--size") { size = try parseSize(text) }
        let zoom = try arguments.option("--zoom").map { text throws(UsageError) -> Double in
            guard let f = Double(text), f >= 1, f <= CaptureSession.defaultMaximumZoom else {
                throw UsageError("--zoom \(text): expected a zoom factor from 1 to \(Int(CaptureSession.defaultMaximumZoom))")
            }
            return f
        }
        let items = try arguments.options("--control")
        var controls: CameraControlRequest?
        if !items.isEmpty {
            do { controls = try CameraControlRequest(parsing: items) } catch { throw UsageError("--control: \(error)") }
        }
        return CaptureOptions(camera: camera, size: size, zoom: zoom, controls: controls)
    }

    /// Applies `--control` and `--zoom` to a session just opened (the driver takes controls
    /// while streaming) and waits until frames carry the zoom.
    /// Opens the camera for a watching command (`scan`, `motion`): following `observer`'s
    /// turns from its first reading, zoomed, with `output` attached.
    func openSession(_ source: CameraSource, following observer: RotationObserver?,
                     attaching output: any CaptureOutput) async throws -> CaptureSession {
        let session = try await CaptureSession.open(source, size: size, rate: FrameRate(30))
        if let observer {
            await observer.firstReading()
            try await session.follow(observer)
        }
        try await applyZoom(to: session)
        try await session.attach(output)
        return session
    }

    func applyZoom(to session: CaptureSession) async throws {
        if let controls, case .device(let device) = session.camera {
            try CameraControls(path: device.path).apply(controls)
        }
        guard let zoom, zoom != 1 else { return }
        try await session.setZoom(zoom)
        try await session.waitForFrames(2)
    }

    /// The camera to open. Throws `CameraError` (unknown name) or `UsageError` (none connected).
    func source() throws -> CameraSource {
        let source: CameraSource
        if let camera {
            source = try CameraSource.resolve(camera)
        } else {
            guard let first = CameraDevice.all().first else {
                throw UsageError("no camera found (`plumb devices` lists none); give --camera PATH or NAME, or --camera test for the test pattern")
            }
            source = .device(first)
        }
        try checkControls(for: source)
        return source
    }

    /// `--control` checked against the camera's controls before it is opened, so a wrong
    /// name or value opens nothing (exit 2).
    private func checkControls(for source: CameraSource) throws(UsageError) {
        guard let controls else { return }
        guard case .device(let device) = source else {
            throw UsageError("--control: \(CameraControlError.noControls(camera: source.identifier))")
        }
        do {
            _ = try controls.resolve(against: try CameraControls(path: device.path).controls)
        } catch {
            throw UsageError("--control: \(error)")
        }
    }

    static func parseSize(_ text: String) throws(UsageError) -> VideoSize {
        guard let size = VideoSize(parsing: text), size.width <= 16384, size.height <= 16384 else {
            throw UsageError("--size \(text): expected WIDTHxHEIGHT such as 1280x720, each side 1 to 16384")
        }
        return size
    }

    /// A whole number in `range`, for `option`.
    static func parseInt(_ text: String, option: String, range: ClosedRange<Int>, what: String) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(option) \(text): expected \(what) from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

extension CameraError.Cause {
    /// The camera argument names nothing usable (a typo, a wrong path): the user fixes
    /// the command line (exit 2). The other causes are a real camera failing (exit 1).
    /// What the command line can do about it, in its own words (the engine names no flags).
    var commandLineHint: String? {
        switch self {
        case .notFound: return "`plumb devices` lists the cameras; --camera test opens the test pattern"
        case .notACaptureDevice, .unknownName: return "`plumb devices` lists the cameras"
        default: return nil
        }
    }

    var isBadArgument: Bool {
        switch self {
        case .unknownName, .notFound, .notADevice, .notACaptureDevice, .notAnImage, .rateUnavailable: return true
        case .busy, .permissionDenied, .noUsableFormat, .noFrames, .lost, .failed: return false
        }
    }
}

/// How a one-shot command reports an error from the engine: the message on stderr, then
/// exit 2 for what the command line can fix (an unknown camera, an unwritable path, a value
/// out of range), exit 1 for a failure at run time (the camera's error names the device).
func report(_ error: any Error, command: String) -> ExitCode {
    let hint = cameraError(error)?.cause.commandLineHint.map { " (\($0))" } ?? ""
    StandardStream.error.write("plumb \(command): error: \(error)\(hint)\n")
    switch error {
    case let e as CameraError:
        return e.cause.isBadArgument ? .usage : .failure
    case CaptureError.camera(let e):
        return e.cause.isBadArgument ? .usage : .failure
    case CaptureError.unwritable, CaptureError.invalidArgument, is UsageError:
        return .usage
    default:
        return .failure
    }
}

/// The camera error inside `error`, if it is one.
func cameraError(_ error: any Error) -> CameraError? {
    switch error {
    case let e as CameraError: return e
    case CaptureError.camera(let e): return e
    default: return nil
    }
}

/// One JSON object: an engine's facts plus the file they describe.
struct FactsReport<Facts: Encodable>: Encodable {
    var facts: Facts
    var file: String?

    private enum Key: String, CodingKey { case file }

    func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(file, forKey: .file)
    }

    /// One line, keys sorted, slashes as they are.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
