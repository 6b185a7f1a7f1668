import FoundationEssentials
import Glibc

/// The location part of `GET /status`: the source, its state, the fix held and its age.
/// Every key is always written, `null` when it has no value.
public struct LocationStatus: Sendable, Equatable, Encodable {
    /// The source as configured: `gpsd:HOST:PORT`, `fixed:LAT,LON[,ALT]` or `off`.
    public var source: String
    /// `off`, `fixed`, or the gpsd client's: `connecting`, `connected`, `unavailable: WHY`.
    public var state = "stopped"
    /// Whether a capture now would carry GPS.
    public var gps = false
    /// The fix held (gpsd's latest report, which may be a no-fix one), or the fixed place.
    public var fix: Fix?
    /// Seconds since the fix was received (monotonic clock); nil for none or a fixed place.
    public var fixAgeSeconds: Double?
    public var maxFixAgeSeconds: Double
    /// gpsd's release, from its VERSION message.
    public var gpsdRelease: String?
    /// Lines from gpsd that were not its JSON, skipped.
    public var skippedLines = 0
    /// Connections made to gpsd since the start (more than one: it went away and came back).
    public var connections = 0
    /// Whether the kernel holds the wall clock synchronised (nil: unknown, or not gpsd).
    public var clockSynchronized: Bool?

    public init(source: String, maxFixAgeSeconds: Double) {
        self.source = source
        self.maxFixAgeSeconds = maxFixAgeSeconds
    }

    public struct Fix: Sendable, Equatable, Encodable {
        /// "no fix", "2D", "3D" ("fixed" for a fixed place).
        public var mode: String
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
        public var horizontalError: Double?
        public var speed: Double?
        public var track: Double?
        /// The fix's GPS time, ISO 8601 UTC.
        public var time: String?

        init(_ fix: GPSFix) {
            mode = fix.mode.description
            latitude = fix.latitude
            longitude = fix.longitude
            altitude = fix.mode == .threeD ? fix.altitude : nil
            horizontalError = fix.horizontalError
            speed = fix.speed
            track = fix.track
            time = fix.time?.iso8601Milliseconds
        }

        init(location: GeoLocation) {
            mode = "fixed"
            latitude = location.latitude
            longitude = location.longitude
            altitude = location.altitude
        }

        enum CodingKeys: String, CodingKey {
            case mode, latitude, longitude, altitude, speed, track, time
            case horizontalError = "horizontal_error_m"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(mode, forKey: .mode)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(altitude, forKey: .altitude)
            try c.encode(horizontalError, forKey: .horizontalError)
            try c.encode(speed, forKey: .speed)
            try c.encode(track, forKey: .track)
            try c.encode(time, forKey: .time)
        }
    }

    enum CodingKeys: String, CodingKey {
        case source, state, gps, fix
        case fixAgeSeconds = "fix_age_s", maxFixAgeSeconds = "max_fix_age_s", gpsdRelease = "gpsd_release"
        case skippedLines = "skipped_lines", connections, clockSynchronized = "clock_synchronized"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // `encode` of an Optional writes null (`encodeIfPresent` would drop the key).
        try c.encode(source, forKey: .source)
        try c.encode(state, forKey: .state)
        try c.encode(gps, forKey: .gps)
        try c.encode(fix, forKey: .fix)
        try c.encode(fixAgeSeconds, forKey: .fixAgeSeconds)
        try c.encode(maxFixAgeSeconds, forKey: .maxFixAgeSeconds)
        try c.encode(gpsdRelease, forKey: .gpsdRelease)
        try c.encode(skippedLines, forKey: .skippedLines)
        try c.encode(connections, forKey: .connections)
        try c.encode(clockSynchronized, forKey: .clockSynchronized)
    }
}
