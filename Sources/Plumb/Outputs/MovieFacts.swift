import Foundation

/// What a finished recording is, as the one-shot command prints it.
public struct MovieFacts: Sendable, Hashable, Codable {
    /// "h264" or "h265": what was really used (after any fallback).
    public var codec: String
    /// The encoder element used ("x264enc").
    public var encoder: String
    public var width: Int
    public var height: Int
    /// From the first frame's start to the last frame's end.
    public var seconds: Double
    public var frames: Int
    /// The file's size.
    public var bytes: Int
    /// When the first frame was recorded, ISO 8601 in UTC.
    public var startedAt: String
    /// The rotation latched at the start, in degrees clockwise.
    public var rotation: Int
    public var file: String

    enum CodingKeys: String, CodingKey {
        case codec, encoder, width, height, seconds, frames, bytes, rotation, file
        case startedAt = "started_at"
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
