import Foundation

/// A quarter turn: the clockwise rotation, in degrees, that turns an image upright.
///
/// Always one of 0, 90, 180, 270. The same type describes a camera's mount, a
/// device's rotation, a display's rotation and the angles Plumb applies.
public struct RotationAngle: Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// 0, 90, 180 or 270.
    public let degrees: Int

    public static let zero = RotationAngle(unchecked: 0)
    public static let ninety = RotationAngle(unchecked: 90)
    public static let oneEighty = RotationAngle(unchecked: 180)
    public static let twoSeventy = RotationAngle(unchecked: 270)

    public static let allCases: [RotationAngle] = [.zero, .ninety, .oneEighty, .twoSeventy]

    private init(unchecked degrees: Int) { self.degrees = degrees }

    /// Any multiple of 90 (negative or past a full turn) normalized into 0..<360; nil otherwise.
    public init?(degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self.degrees = ((degrees % 360) + 360) % 360
    }

    /// Parses "0", "90", "180", "270" (also "-90", "360" ...).
    public init?(_ text: some StringProtocol) {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.init(degrees: value)
    }

    /// The nearest quarter turn to any angle in degrees (ties round up).
    public init(nearest degrees: Double) {
        let quarter = Int((degrees / 90).rounded(.toNearestOrAwayFromZero))
        self.degrees = (((quarter * 90) % 360) + 360) % 360
    }

    /// The rotation that undoes this one.
    public var inverse: RotationAngle { RotationAngle(unchecked: (360 - degrees) % 360) }

    /// Whether a rotation by this angle swaps width and height.
    public var swapsDimensions: Bool { degrees == 90 || degrees == 270 }

    public static func + (lhs: RotationAngle, rhs: RotationAngle) -> RotationAngle {
        RotationAngle(unchecked: (lhs.degrees + rhs.degrees) % 360)
    }

    public static func - (lhs: RotationAngle, rhs: RotationAngle) -> RotationAngle {
        lhs + rhs.inverse
    }

    public static func < (lhs: RotationAngle, rhs: RotationAngle) -> Bool { lhs.degrees < rhs.degrees }

    public var description: String { "\(degrees)" }
}
