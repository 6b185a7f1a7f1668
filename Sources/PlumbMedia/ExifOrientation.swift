import PlumbRotation
/// The EXIF Orientation tag (0x0112): how a viewer must turn (and maybe mirror)
/// the stored pixels to show them upright.
public enum ExifOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// 1, "Horizontal (normal)"
    case normal = 1
    /// 2, "Mirror horizontal"
    case mirrorHorizontal = 2
    /// 3, "Rotate 180"
    case rotate180 = 3
    /// 4, "Mirror vertical"
    case mirrorVertical = 4
    /// 5, "Mirror horizontal and rotate 270 CW"
    case mirrorHorizontalRotate270 = 5
    /// 6, "Rotate 90 CW"
    case rotate90 = 6
    /// 7, "Mirror horizontal and rotate 90 CW"
    case mirrorHorizontalRotate90 = 7
    /// 8, "Rotate 270 CW"
    case rotate270 = 8

    /// The orientation for a clockwise rotation: 0 -> 1, 90 -> 6, 180 -> 3, 270 -> 8.
    public init(rotation: RotationAngle) {
        switch rotation {
        case .degrees90: self = .rotate90
        case .degrees180: self = .rotate180
        case .degrees270: self = .rotate270
        default: self = .normal
        }
    }

    /// The clockwise rotation, or nil for the mirrored orientations.
    public var rotation: RotationAngle? {
        switch self {
        case .normal: return .degrees0
        case .rotate90: return .degrees90
        case .rotate180: return .degrees180
        case .rotate270: return .degrees270
        default: return nil
        }
    }

    public var isMirrored: Bool { rotation == nil }

    /// exiftool's name for it.
    public var description: String {
        switch self {
        case .normal: return "Horizontal (normal)"
        case .mirrorHorizontal: return "Mirror horizontal"
        case .rotate180: return "Rotate 180"
        case .mirrorVertical: return "Mirror vertical"
        case .mirrorHorizontalRotate270: return "Mirror horizontal and rotate 270 CW"
        case .rotate90: return "Rotate 90 CW"
        case .mirrorHorizontalRotate90: return "Mirror horizontal and rotate 90 CW"
        case .rotate270: return "Rotate 270 CW"
        }
    }

    /// GStreamer's `image-orientation` tag value for it ("rotate-90", "flip-rotate-0" ...),
    /// which `jifmux` turns into this EXIF tag.
    public var imageOrientationTag: String {
        switch self {
        case .normal: return "rotate-0"
        case .mirrorHorizontal: return "flip-rotate-0"
        case .rotate180: return "rotate-180"
        case .mirrorVertical: return "flip-rotate-180"
        case .mirrorHorizontalRotate270: return "flip-rotate-270"
        case .rotate90: return "rotate-90"
        case .mirrorHorizontalRotate90: return "flip-rotate-90"
        case .rotate270: return "rotate-270"
        }
    }
}
