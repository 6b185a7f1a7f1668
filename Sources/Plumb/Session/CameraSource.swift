/// Where the session's frames come from.
public enum CameraSource: Sendable, Hashable {
    /// `videotestsrc` as a live camera: a moving pattern with the running time drawn on it.
    case testPattern(TestPattern = .ball)
    /// The test pattern sent as MJPEG, the way a USB webcam sends HD (`videotestsrc !
    /// jpegenc`): the session decodes it as it does a webcam's ("test:mjpeg").
    case mjpegTestPattern
    /// A V4L2 camera.
    case device(CameraDevice)
    /// A camera libcamera drives (Raspberry Pi camera modules), by its libcamera id, opened
    /// through `libcamerasrc` (Debian's gstreamer1.0-libcamera).
    case libcamera(String)
    /// A still PNG or JPEG shown as a live camera ("image:FILE").
    case image(ImageCameraSource)

    /// What `--camera` and `[camera] device` take for a libcamera camera: "libcamera:ID".
    public static let libcameraPrefix = "libcamera:"

    /// The `videotestsrc` patterns that move (a still pattern would hide a frozen pipeline).
    public enum TestPattern: String, Sendable, Hashable, CaseIterable {
        /// A ball bouncing across the frame.
        case ball
        /// SMPTE bars scrolling sideways.
        case smpte
        /// The ball with the wall clock coded in blocks across the top (`PixelClock`),
        /// for measuring glass-to-glass latency ("test:clock").
        case clock

        /// videotestsrc's name for the pattern drawn.
        var videotestsrcPattern: String { self == .clock ? "ball" : rawValue }
    }

    /// From a command-line value: "test" (or "test:smpte"), "image:FILE", a device path, or a camera name.
    public static func resolve(_ text: String) throws(CameraError) -> CameraSource {
        if text == "test" { return .testPattern(.ball) }
        if text == "test:mjpeg" { return .mjpegTestPattern }
        if text.hasPrefix("test:"), let p = TestPattern(rawValue: String(text.dropFirst(5))) {
            return .testPattern(p)
        }
        if text.hasPrefix(ImageCameraSource.prefix) {
            return .image(try ImageCameraSource(path: String(text.dropFirst(ImageCameraSource.prefix.count))))
        }
        if text.hasPrefix(libcameraPrefix) {
            let id = String(text.dropFirst(libcameraPrefix.count))
            guard !id.isEmpty else {
                throw CameraError(device: text, cause: .unknownName, detail: "give the camera's id as `plumb devices` lists it")
            }
            return .libcamera(id)
        }
        return .device(try CameraDevice.find(text))
    }

    /// The camera's name, as photos and facts report it (EXIF Model).
    public var name: String {
        switch self {
        case .testPattern: return "Plumb test pattern"
        case .mjpegTestPattern: return "Plumb MJPEG test pattern"
        case .device(let d): return d.name
        case .libcamera(let id): return id
        case .image: return "Plumb image camera"
        }
    }

    /// The device path or "test", as errors name it.
    public var identifier: String {
        switch self {
        case .testPattern(let p): return p == .ball ? "test" : "test:\(p.rawValue)"
        case .mjpegTestPattern: return "test:mjpeg"
        case .device(let d): return d.path
        case .libcamera(let id): return Self.libcameraPrefix + id
        case .image(let i): return ImageCameraSource.prefix + i.path
        }
    }

    public var isTestPattern: Bool {
        switch self {
        case .testPattern, .mjpegTestPattern, .image: return true
        case .device, .libcamera: return false
        }
    }
}
