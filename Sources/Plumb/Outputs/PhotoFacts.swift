import Foundation

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
