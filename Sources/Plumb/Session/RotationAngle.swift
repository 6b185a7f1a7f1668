/// How far a captured frame must be turned clockwise to be upright: 0, 90, 180 or 270
/// degrees — AVFoundation's `videoRotationAngle`. Outputs carry it without rotating
/// pixels where a container can say it (EXIF Orientation, the MP4 track matrix) and by
/// rotating pixels where it cannot (the preview).
///
/// The session keeps the angle fixed until the rotation work (accelerometer and
/// coordinator) drives `CaptureSession.setRotation(_:)`.
public enum RotationAngle: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case degrees0 = 0
    case degrees90 = 90
    case degrees180 = 180
    case degrees270 = 270

    /// The nearest quarter turn to any angle in degrees (negative and > 360 allowed).
    public init(nearest degrees: Double) {
        let quarter = Int((degrees / 90).rounded()) % 4
        self = RotationAngle(rawValue: ((quarter + 4) % 4) * 90)!
    }

    public var degrees: Int { rawValue }

    public var description: String { "\(rawValue)°" }

    /// The GStreamer `image-orientation` tag value ("rotate-90"): jifmux turns it into EXIF Orientation.
    public var imageOrientationTag: String { "rotate-\(rawValue)" }

    /// The EXIF Orientation number for a frame shown after turning it clockwise by this angle
    /// (1 normal, 6 rotate 90 CW, 3 rotate 180, 8 rotate 270 CW).
    public var exifOrientation: Int {
        switch self {
        case .degrees0: return 1
        case .degrees90: return 6
        case .degrees180: return 3
        case .degrees270: return 8
        }
    }

    /// The `videoflip` `video-direction` nick that turns the pixels upright.
    public var videoDirection: String {
        switch self {
        case .degrees0: return "identity"
        case .degrees90: return "90r"
        case .degrees180: return "180"
        case .degrees270: return "90l"
        }
    }

    /// Whether width and height swap once the frame is upright.
    public var swapsDimensions: Bool { self == .degrees90 || self == .degrees270 }
}
