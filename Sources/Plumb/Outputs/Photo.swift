import Foundation

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

/// What a photo is, as the one-shot command prints it and an HTTP header carries it.
public struct PhotoFacts: Sendable, Hashable, Codable {
    /// The camera's name (also EXIF Model).
    public var camera: String
    public var width: Int
    public var height: Int
    /// The JPEG's size in bytes.
    public var bytes: Int
    /// When the frame arrived, ISO 8601 in UTC with milliseconds.
    public var takenAt: String
    /// The EXIF Orientation written (1, 6, 3 or 8); pixels are never rotated.
    public var orientation: Int
    /// Whether GPS tags went in.
    public var gps: Bool
    /// The JPEG quality used (1-100).
    public var quality: Int

    enum CodingKeys: String, CodingKey {
        case camera, width, height, bytes, orientation, gps, quality
        case takenAt = "taken_at"
    }

    /// The facts as one line of JSON with sorted keys.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}

/// A JPEG and its facts.
public struct Photo: Sendable {
    public var jpeg: Data
    public var facts: PhotoFacts
    /// The frame's timestamp on the session's clock (running time, nanoseconds).
    public var frameTime: UInt64?
    /// The sequence number of the frame within the photo output (equal for photos from one frame).
    public var frameNumber: Int
}

extension Date {
    /// "2026-11-02T22:55:01.123Z".
    var iso8601Milliseconds: String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: self)
    }
}
