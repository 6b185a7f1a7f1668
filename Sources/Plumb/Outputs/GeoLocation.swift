/// Where a photo was taken, for its EXIF GPS tags.
public struct GeoLocation: Sendable, Hashable, Codable {
    /// Degrees, north positive (-90 ... 90).
    public var latitude: Double
    /// Degrees, east positive (-180 ... 180).
    public var longitude: Double
    /// Metres above sea level, when known.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    var isValid: Bool {
        (-90...90).contains(latitude) && (-180...180).contains(longitude) && (altitude?.isFinite ?? true)
    }
}
