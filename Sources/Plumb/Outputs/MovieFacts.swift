import Foundation
import GStreamer

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

/// How a recording is made.
public struct MovieOptions: Sendable {
    /// mp4mux fragment length: a crash loses at most this much.
    public var fragmentDuration: Duration = .seconds(1)
    /// Frames between keyframes; nil means one per fragment.
    public var keyframeInterval: Int?
    /// Target bitrate in kbit/s; nil leaves the encoder's default.
    public var bitrate: Int?
    /// Writes the rotation into the MP4 track matrix; nil leaves it identity
    /// (mp4mux before GStreamer 1.26 ignores the orientation tag).
    public var matrixWriter: (any TrackMatrixWriter)?
    /// Whether an encoder element is installed; tests replace it to exercise the fallback.
    public var isAvailable: @Sendable (String) -> Bool = { Gst.hasElement($0) }

    public init() {}
}

/// Puts a rotation into the `tkhd` matrix of the MP4 the muxer writes, by rewriting the
/// header buffers leaving `muxerSource` (mp4mux's src pad). Installed once, before the
/// first frame, with the angle latched at the start of the recording. The rotation work
/// provides the implementation.
public protocol TrackMatrixWriter: Sendable {
    func install(on muxerSource: Pad, angle: RotationAngle) throws
}
