/// Where the session's frames come from.
public enum CameraSource: Sendable, Hashable {
    /// `videotestsrc` as a live camera: a moving pattern with the running time drawn on it.
    case testPattern(TestPattern = .ball)
    /// A V4L2 camera.
    case device(CameraDevice)

    /// The `videotestsrc` patterns that move (a still pattern would hide a frozen pipeline).
    public enum TestPattern: String, Sendable, Hashable, CaseIterable {
        /// A ball bouncing across the frame.
        case ball
        /// SMPTE bars scrolling sideways.
        case smpte
    }

    /// From a command-line value: "test" (or "test:smpte"), a device path, or a camera name.
    public static func resolve(_ text: String) throws(CameraError) -> CameraSource {
        if text == "test" { return .testPattern(.ball) }
        if text.hasPrefix("test:"), let p = TestPattern(rawValue: String(text.dropFirst(5))) {
            return .testPattern(p)
        }
        return .device(try CameraDevice.find(text))
    }

    /// The camera's name, as photos and facts report it (EXIF Model).
    public var name: String {
        switch self {
        case .testPattern: return "Plumb test pattern"
        case .device(let d): return d.name
        }
    }

    /// The device path or "test", as errors name it.
    public var identifier: String {
        switch self {
        case .testPattern(let p): return p == .ball ? "test" : "test:\(p.rawValue)"
        case .device(let d): return d.path
        }
    }

    public var isTestPattern: Bool {
        if case .testPattern = self { return true } else { return false }
    }
}
