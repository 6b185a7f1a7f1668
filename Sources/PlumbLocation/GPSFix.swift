import FoundationEssentials
import Glibc

/// One position report from gpsd: the fields of a TPV ("time-position-velocity") message
/// that a capture uses. Only `mode` is always there; gpsd leaves out what it does not know.
public struct GPSFix: Sendable, Hashable {
    /// gpsd's `mode`: what the receiver knows.
    public enum Mode: Int, Sendable, Hashable, CustomStringConvertible {
        /// 0: gpsd has not heard from the receiver yet.
        case unknown = 0
        /// 1: the receiver answers but has no position.
        case noFix = 1
        /// 2: latitude and longitude, no altitude.
        case twoD = 2
        /// 3: latitude, longitude and altitude.
        case threeD = 3

        public var description: String {
            switch self {
            case .unknown: return "unknown"
            case .noFix: return "no fix"
            case .twoD: return "2D"
            case .threeD: return "3D"
            }
        }
    }

    public var mode: Mode
    /// Degrees, north positive.
    public var latitude: Double?
    /// Degrees, east positive.
    public var longitude: Double?
    /// Metres above mean sea level (`altMSL`, or `alt` from gpsd before 3.20).
    public var altitude: Double?
    /// Estimated horizontal position error in metres (`eph`, or from `epx` and `epy`).
    public var horizontalError: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north.
    public var track: Double?
    /// The fix's UTC time as the receiver gave it (`time`).
    public var time: Date?
    /// The receiver the report is about (`device`), when gpsd names it.
    public var device: String?

    public init(mode: Mode, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil,
                horizontalError: Double? = nil, speed: Double? = nil, track: Double? = nil, time: Date? = nil,
                device: String? = nil) {
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalError = horizontalError
        self.speed = speed
        self.track = track
        self.time = time
        self.device = device
    }

    /// Whether the report holds a position: a 2D or 3D fix with its coordinates.
    public var hasPosition: Bool {
        (mode == .twoD || mode == .threeD) && latitude != nil && longitude != nil
    }

    /// Whether the report says 2D or 3D but carries no position (gpsd's first report as it
    /// opens a receiver, before a sentence with the position).
    var claimsPositionItLacks: Bool {
        (mode == .twoD || mode == .threeD) && !hasPosition
    }

    /// The fix as a capture's location; nil without a position. A 2D fix has no altitude,
    /// whatever gpsd still carries over from an earlier 3D one.
    public func location(age: Duration? = nil, clockUnsynchronized: Bool = false) -> GeoLocation? {
        guard hasPosition, let latitude, let longitude else { return nil }
        return GeoLocation(latitude: latitude, longitude: longitude, altitude: mode == .threeD ? altitude : nil,
                           horizontalError: horizontalError, speed: speed, track: track, time: time,
                           fixAge: age.map(\.seconds), clockUnsynchronized: clockUnsynchronized)
    }
}
