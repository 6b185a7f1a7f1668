import PlumbLocation

/// Facts of a capture that may carry a location (`PhotoFacts`, `RecordingFacts`): `gps`, and
/// with it `latitude`, `longitude`, `altitude` (a 3D fix or a fixed place with one),
/// `fix_age_s` (seconds since gpsd's fix was received, on the monotonic clock), `gps_time`
/// (the fix's UTC time) and `clock_unsynchronized` (true when the wall clock was not
/// synchronised while the fix's GPS time was valid: `gps_time` is then the better clock).
/// Without a location only `gps: false` is written.
public protocol LocatedFacts {
    var gps: Bool { get set }
    var latitude: Double? { get set }
    var longitude: Double? { get set }
    var altitude: Double? { get set }
    var fixAge: Double? { get set }
    var gpsTime: String? { get set }
    var clockUnsynchronized: Bool? { get set }
}

extension LocatedFacts {
    /// Sets the location keys for `location` (nil: none).
    mutating func set(_ location: GeoLocation?) {
        gps = location != nil
        latitude = location?.latitude
        longitude = location?.longitude
        altitude = location?.altitude
        fixAge = location?.fixAge.map { ($0 * 1000).rounded() / 1000 }
        gpsTime = location?.time?.iso8601Milliseconds
        clockUnsynchronized = location?.clockUnsynchronized == true ? true : nil
    }
}
