import FoundationEssentials
import Glibc
import PlumbBase

/// How far a captured frame must be turned clockwise to be upright: 0, 90, 180 or 270
/// degrees (AVFoundation's `videoRotationAngle`).
///
/// The same type describes a camera's mount, a device's rotation, a display's
/// rotation and the angles Plumb applies. Outputs carry it without rotating
/// pixels where a container can say it (EXIF Orientation, the MP4 track matrix)
/// and by rotating pixels where it cannot (the preview's `videoflip`).
///
/// (The session work has the same type with the same cases and members; this one
/// adds parsing and arithmetic. Keep one when the branches meet.)
public enum RotationAngle: Int, Sendable, Codable, CaseIterable, Comparable, CustomStringConvertible {
    case degrees0 = 0
    case degrees90 = 90
    case degrees180 = 180
    case degrees270 = 270

    /// Any multiple of 90, negative or past a full turn, normalized into 0..<360; nil otherwise.
    public init?(degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    /// Parses "0", "90", "180", "270" (also "-90", "360" ...); nil for anything else.
    public init?(_ text: some StringProtocol) {
        guard let value = Int(text.trimmed) else { return nil }
        self.init(degrees: value)
    }

    /// The nearest quarter turn to any angle in degrees (negative and > 360 allowed; ties away from zero).
    public init(nearest degrees: Double) {
        let quarter = Int((degrees / 90).rounded()) % 4
        self = RotationAngle(rawValue: ((quarter + 4) % 4) * 90)!
    }

    public var degrees: Int { rawValue }

    public var description: String { "\(rawValue)°" }

    /// The rotation that undoes this one.
    public var inverse: RotationAngle { RotationAngle(rawValue: (360 - rawValue) % 360)! }

    /// Whether width and height swap once the frame is upright.
    public var swapsDimensions: Bool { self == .degrees90 || self == .degrees270 }

    public static func + (lhs: RotationAngle, rhs: RotationAngle) -> RotationAngle {
        RotationAngle(rawValue: (lhs.rawValue + rhs.rawValue) % 360)!
    }

    public static func - (lhs: RotationAngle, rhs: RotationAngle) -> RotationAngle {
        lhs + rhs.inverse
    }

    public static func < (lhs: RotationAngle, rhs: RotationAngle) -> Bool { lhs.rawValue < rhs.rawValue }
}

