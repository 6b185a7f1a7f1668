import FoundationEssentials
import Glibc
import PlumbRotation

/// The 3×3 transformation matrix of an MP4/QuickTime track header (`tkhd`).
///
/// Stored as `a b u / c d v / x y w`, nine big-endian 32-bit values: a, b, c, d,
/// x, y in 16.16 fixed point, u, v, w in 2.30. A point (p, q) is shown at
/// (a·p + c·q + x, b·p + d·q + y). A clockwise rotation by θ is
/// a = cos θ, b = sin θ, c = -sin θ, d = cos θ; for 90° that is `0 1 0 / -1 0 0 / 0 0 1`:
/// `exiftool -Rotation` reads 90 and ffprobe, which counts counter-clockwise,
/// gives its displaymatrix rotation as -90.
public struct TrackMatrix: Sendable, Equatable, CustomStringConvertible {
    /// a, b, u, c, d, v, x, y, w as stored.
    public var values: [Int32]

    /// 1.0 in 16.16 and in 2.30.
    static let one16: Int32 = 0x0001_0000
    static let one30: Int32 = 0x4000_0000

    public static let identity = TrackMatrix(rotation: .degrees0)

    public init(values: [Int32]) {
        precondition(values.count == 9, "a track matrix has nine values")
        self.values = values
    }

    /// The matrix that shows the track turned `rotation` clockwise (no translation).
    public init(rotation: RotationAngle) {
        let (cos, sin): (Int32, Int32)
        switch rotation {
        case .degrees90: (cos, sin) = (0, 1)
        case .degrees180: (cos, sin) = (-1, 0)
        case .degrees270: (cos, sin) = (0, -1)
        default: (cos, sin) = (1, 0)
        }
        let one = Self.one16
        values = [cos * one, sin * one, 0, -sin * one, cos * one, 0, 0, 0, Self.one30]
    }

    /// The clockwise quarter turn this matrix shows, or nil when it also mirrors, scales or
    /// turns by another angle.
    public var rotation: RotationAngle? {
        RotationAngle.allCases.first { candidate in
            let r = TrackMatrix(rotation: candidate).values
            return values[0] == r[0] && values[1] == r[1] && values[3] == r[3] && values[4] == r[4]
        }
    }

    /// The clockwise rotation in degrees read from a and b, whatever else the matrix does.
    public var degrees: Double {
        let angle = atan2(Double(values[1]), Double(values[0])) * 180 / .pi
        return angle < 0 ? angle + 360 : angle
    }

    /// "0 1 0 -1 0 0 0 0 1": the values as numbers, as exiftool prints the structure.
    public var description: String {
        values.enumerated().map { i, v in
            let value = Double(v) / Double([2, 5, 8].contains(i) ? Self.one30 : Self.one16)
            return value == value.rounded() ? "\(Int(value))" : "\(value)"
        }.joined(separator: " ")
    }
}
