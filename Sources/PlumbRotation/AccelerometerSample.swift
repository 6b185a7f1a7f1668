/// One accelerometer reading in the device frame, in m/s².
///
/// The Linux IIO / Android convention: x to the right and y toward the top edge
/// of the device in its natural position, z out of its face. At rest the sensor
/// reads the reaction to gravity, so a device held upright reads about (0, +9.8, 0).
public struct AccelerometerSample: Sendable, Equatable, CustomStringConvertible {
    /// When the sample was taken, from the start of its source (a replay file's `t_ms`).
    public var time: Duration
    public var x: Double
    public var y: Double
    public var z: Double

    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665
    /// Readings longer than this (4 g) are not a device at rest or in a hand: a broken sensor or a bad scale.
    public static let maximumMagnitude = 4 * standardGravity
    /// Readings shorter than this (1% of g) carry no direction: a zeroed or stuck sensor.
    public static let minimumMagnitude = 0.01 * standardGravity

    public init(time: Duration, x: Double, y: Double, z: Double) {
        self.time = time
        self.x = x
        self.y = y
        self.z = z
    }

    /// A checked sample: non-finite components, a zero vector and an absurd magnitude are rejected.
    public static func validated(time: Duration, x: Double, y: Double, z: Double) throws(MalformedSample)
        -> AccelerometerSample
    {
        guard x.isFinite, y.isFinite, z.isFinite else { throw .nonFinite }
        let magnitude = (x * x + y * y + z * z).squareRoot()
        guard magnitude.isFinite else { throw .absurdMagnitude(magnitude) }
        guard magnitude >= minimumMagnitude else { throw .zeroVector }
        guard magnitude <= maximumMagnitude else { throw .absurdMagnitude(magnitude) }
        return AccelerometerSample(time: time, x: x, y: y, z: z)
    }

    /// What a sensor at rest reads when its device is turned `deviceRotation`
    /// clockwise from its natural position, standing on an edge.
    public static func resting(_ deviceRotation: RotationAngle, time: Duration = .zero) -> AccelerometerSample {
        let g = standardGravity
        switch deviceRotation {
        case .degrees90: return AccelerometerSample(time: time, x: -g, y: 0, z: 0)
        case .degrees180: return AccelerometerSample(time: time, x: 0, y: -g, z: 0)
        case .degrees270: return AccelerometerSample(time: time, x: g, y: 0, z: 0)
        default: return AccelerometerSample(time: time, x: 0, y: g, z: 0)
        }
    }

    /// A device lying face up on a table.
    public static func lyingFlat(time: Duration = .zero) -> AccelerometerSample {
        AccelerometerSample(time: time, x: 0, y: 0, z: standardGravity)
    }

    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    public var description: String {
        "t=\(time.milliseconds)ms x=\(x.formatted2) y=\(y.formatted2) z=\(z.formatted2)"
    }
}

/// Why a sample was dropped. Dropped samples are counted, never fatal.
public enum MalformedSample: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value that is not a number (the offending text).
    case nonNumeric(String)
    /// NaN or infinity.
    case nonFinite
    /// All components (nearly) zero: no direction.
    case zeroVector
    /// Longer than `AccelerometerSample.maximumMagnitude`.
    case absurdMagnitude(Double)
    /// A replayed line whose time is before the previous one's.
    case timeWentBackwards(Duration)

    public var description: String {
        switch self {
        case .nonNumeric(let text): return "not a number: \"\(text)\""
        case .nonFinite: return "NaN or infinite component"
        case .zeroVector: return "zero vector"
        case .absurdMagnitude(let m): return "absurd magnitude \(m.formatted2) m/s² (more than 4 g)"
        case .timeWentBackwards(let t): return "time \(t.milliseconds) ms is before the previous sample's"
        }
    }

    /// A short stable name, for counting by reason.
    public var reason: String {
        switch self {
        case .nonNumeric: return "non-numeric"
        case .nonFinite: return "non-finite"
        case .zeroVector: return "zero-vector"
        case .absurdMagnitude: return "absurd-magnitude"
        case .timeWentBackwards: return "time-backwards"
        }
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    package var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
