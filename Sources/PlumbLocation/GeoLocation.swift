import FoundationEssentials
import Glibc

/// Where a still or a recording was taken: its EXIF GPS tags (`ExifTIFF.setGPS`), the
/// MP4's `©xyz` (`MP4LocationWriter`) and the facts' coordinates. A fixed location has
/// the coordinates only; one from gpsd (`LocationProvider`) has what the fix knew.
public struct GeoLocation: Sendable, Hashable, Codable {
    /// Degrees, north positive (-90 ... 90).
    public var latitude: Double
    /// Degrees, east positive (-180 ... 180).
    public var longitude: Double
    /// Metres above sea level, when known (never for a 2D fix).
    public var altitude: Double?
    /// Estimated horizontal position error in metres (EXIF GPSHPositioningError).
    public var horizontalError: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Direction of movement, degrees clockwise from true north.
    public var track: Double?
    /// The fix's UTC time from the satellites (EXIF GPSDateStamp and GPSTimeStamp).
    public var time: Date?
    /// Seconds since the fix was received, on the monotonic clock; nil for a fixed location.
    public var fixAge: Double?
    /// The wall clock was not synchronised when the fix was read, and the fix's GPS time is
    /// valid: `time` is the better clock (a board without a real-time clock boots anywhere in time).
    public var clockUnsynchronized = false

    public init(latitude: Double, longitude: Double, altitude: Double? = nil, horizontalError: Double? = nil,
                speed: Double? = nil, track: Double? = nil, time: Date? = nil, fixAge: Double? = nil,
                clockUnsynchronized: Bool = false) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalError = horizontalError
        self.speed = speed
        self.track = track
        self.time = time
        self.fixAge = fixAge
        self.clockUnsynchronized = clockUnsynchronized
    }

    package var isValid: Bool {
        (-90...90).contains(latitude) && (-180...180).contains(longitude) && (altitude?.isFinite ?? true)
    }
}
