import Foundation

/// What a finished recording is, as the one-shot command prints it. A recording that split
/// on rotation into several files sums them up here and lists each in `segments`.
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
    /// The rotation the file's track matrix carries (latched at the start), in degrees clockwise.
    public var rotation: Int
    /// The rotation turned into the pixels instead (`MovieOptions.burnIn`); the matrix is then identity.
    public var burnedIn: Int?
    /// The (first) file.
    public var file: String
    /// Every file, in order, when the recording split on rotation (nil for one file).
    public var segments: [MovieFacts]?
    /// Why the file ended by itself (a full disk, a failed encoder, the camera gone); nil
    /// when it was stopped. `frames` then counts what the file holds, as a reader finds it.
    public var error: String?
    /// Why a recording ended before the length it was asked for (a clip cut short by
    /// `plumb serve` stopping); nil when it got its whole length.
    public var cutShort: String?

    enum CodingKeys: String, CodingKey {
        case codec, encoder, width, height, seconds, frames, bytes, rotation, file, segments, error
        case startedAt = "started_at"
        case burnedIn = "burned_in"
        case cutShort = "cut_short"
    }

    public init(codec: String, encoder: String, width: Int, height: Int, seconds: Double, frames: Int, bytes: Int,
                startedAt: String, rotation: Int, burnedIn: Int? = nil, file: String, segments: [MovieFacts]? = nil) {
        self.codec = codec
        self.encoder = encoder
        self.width = width
        self.height = height
        self.seconds = seconds
        self.frames = frames
        self.bytes = bytes
        self.startedAt = startedAt
        self.rotation = rotation
        self.burnedIn = burnedIn
        self.file = file
        self.segments = segments
    }

    /// The facts of a recording made of `files` (in order): the first file's, with frames,
    /// seconds and bytes summed over all, and every file in `segments` when there are several.
    static func combining(_ files: [MovieFacts]) -> MovieFacts? {
        guard var whole = files.first else { return nil }
        guard files.count > 1 else { return whole }
        whole.frames = files.reduce(0) { $0 + $1.frames }
        whole.bytes = files.reduce(0) { $0 + $1.bytes }
        whole.seconds = (files.reduce(0) { $0 + $1.seconds } * 1000).rounded() / 1000
        whole.error = files.compactMap(\.error).last
        whole.segments = files
        return whole
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
