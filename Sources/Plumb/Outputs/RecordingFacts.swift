import FoundationEssentials
import Glibc

/// What a finished recording is, as the one-shot command prints it. A recording that split
/// on rotation into several files sums them up here and lists each in `segments`.
public struct RecordingFacts: Sendable, Hashable, Codable, LocatedFacts {
    /// "h264" or "h265": what was really used (after any fallback).
    public var codec: String
    /// The encoder element used ("x264enc").
    public var encoder: String
    /// The better encoders that were not used, each "NAME: why" (element missing, device
    /// node missing, failed to start: the driver's error); nil when the best one ran.
    public var encoderPassedOver: [String]?
    /// Set when a better encoder exists here but failed, so a worse one runs.
    public var encoderFallback: Bool?
    /// The pixel format conversion before the encoder ("I420 -> NV12": every frame copied);
    /// nil when the encoder took the frames as they came.
    public var pixelConversion: String?
    public var width: Int
    public var height: Int
    /// From the first frame's start to the last frame's end.
    public var seconds: Double
    public var frames: Int
    /// Frames missing from the file over its span (from its first frame to its last, or to
    /// the end of the length asked for when it reached it): `framesLostByCamera` plus
    /// `framesLostByEncoder`. 0 when every frame of the span is in it.
    public private(set) var framesLost = 0
    /// Frames the camera dropped (gaps in its sequence numbers, or in its timestamps against
    /// the rate) between the frames it gave the recording.
    public private(set) var framesLostByCamera = 0
    /// Frames the camera gave the recording that did not reach the file: dropped by the
    /// branch's leaky queue behind a slow encoder, by the encoder, or lost with a failed write.
    public private(set) var framesLostByEncoder = 0

    /// Sets the frames lost before the recording's branch (`camera`) and in it (`encoder`).
    mutating func setLost(camera: Int, encoder: Int) {
        framesLostByCamera = camera
        framesLostByEncoder = encoder
        framesLost = camera + encoder
    }
    /// The file's size.
    public var bytes: Int
    /// When the first frame was recorded, ISO 8601 in UTC.
    public var startedAt: String
    /// The orientation the file carries (as `PhotoFacts.orientation` for a still): the angle
    /// its track matrix turns it by (latched at the start), in degrees clockwise. JSON
    /// `rotation`, as ffprobe and exiftool call it.
    public var orientation: Int
    /// The rotation turned into the pixels instead (`RecordingOptions.burnIn`); the matrix is then identity.
    public var burnedIn: Int?
    /// The (first) file.
    public var file: String
    /// Every file, in order, when the recording split on rotation (nil for one file).
    public var segments: [RecordingFacts]?
    /// Why the file ended by itself (a full disk, a failed encoder, the camera gone); nil
    /// when it was stopped. `frames` then counts what the file holds, as a reader finds it.
    public var error: String?
    /// Why a recording ended before the length it was asked for (a clip cut short by
    /// `plumb serve` stopping); nil when it got its whole length.
    public var cutShort: String?
    /// The camera's controls in force when the recording started (`CameraControlReading.inForce`:
    /// plain name or driver name → value, each as `--control` takes it); nil for a camera
    /// without V4L2 controls.
    public var controls: [String: CameraControlFact]?
    /// Whether the file carries the location of its start (`udta/©xyz`).
    public var gps = false
    // That location (`LocatedFacts`).
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?
    public var fixAge: Double?
    public var gpsTime: String?
    public var clockUnsynchronized: Bool?
    /// Whether the kernel held the wall clock synchronised when the capture's time
    /// (`started_at`/`taken_at`, the file name, EXIF/MP4 dates) was read: false on a board
    /// without a real-time clock until NTP has set it (that time may be hours or years off);
    /// nil when the kernel did not say (`WallClock.isSynchronized`).
    public var clockSynchronized: Bool?

    enum CodingKeys: String, CodingKey {
        case encoderPassedOver = "encoder_passed_over", encoderFallback = "encoder_fallback", pixelConversion = "pixel_conversion"
        case codec, encoder, width, height, seconds, frames, bytes, file, segments, error, controls
        case orientation = "rotation"
        case framesLost = "frames_lost", framesLostByCamera = "frames_lost_by_camera"
        case framesLostByEncoder = "frames_lost_by_encoder"
        case startedAt = "started_at"
        case burnedIn = "burned_in"
        case cutShort = "cut_short"
        case gps, latitude, longitude, altitude
        case fixAge = "fix_age_s", gpsTime = "gps_time", clockUnsynchronized = "clock_unsynchronized"
        case clockSynchronized = "clock_synchronized"
    }

    public init(codec: String, encoder: String, width: Int, height: Int, seconds: Double, frames: Int, bytes: Int,
                startedAt: String, orientation: Int, burnedIn: Int? = nil, file: String, segments: [RecordingFacts]? = nil) {
        self.codec = codec
        self.encoder = encoder
        self.width = width
        self.height = height
        self.seconds = seconds
        self.frames = frames
        self.bytes = bytes
        self.startedAt = startedAt
        self.orientation = orientation
        self.burnedIn = burnedIn
        self.file = file
        self.segments = segments
    }

    /// The facts of a recording made of `files` (in order): the first file's, with frames,
    /// seconds and bytes summed over all, and every file in `segments` when there are several.
    /// A file no frame reached (a stop just after a split) is not among them: it was removed.
    static func combining(_ all: [RecordingFacts]) -> RecordingFacts? {
        let recorded = all.filter { $0.frames > 0 }
        let files = recorded.isEmpty ? Array(all.prefix(1)) : recorded
        guard var whole = files.first else { return nil }
        // Why the recording ended, whichever file says it.
        whole.error = all.compactMap(\.error).last
        guard files.count > 1 else { return whole }
        whole.frames = files.reduce(0) { $0 + $1.frames }
        whole.bytes = files.reduce(0) { $0 + $1.bytes }
        whole.setLost(camera: files.reduce(0) { $0 + $1.framesLostByCamera },
                      encoder: files.reduce(0) { $0 + $1.framesLostByEncoder })
        whole.seconds = (files.reduce(0) { $0 + $1.seconds } * 1000).rounded() / 1000
        whole.segments = files
        return whole
    }

    /// "lost N of M frames: the camera dropped X, Y did not reach the file …" for a warning,
    /// when the file misses frames of its span; nil when it has them all.
    public var lossSummary: String? {
        guard framesLost > 0 else { return nil }
        var causes: [String] = []
        if framesLostByCamera > 0 { causes.append("the camera dropped \(framesLostByCamera)") }
        if framesLostByEncoder > 0 { causes.append("\(framesLostByEncoder) did not reach the file (the encoder fell behind)") }
        return "lost \(framesLost) of \(frames + framesLost) frames: \(causes.joined(separator: ", ")); "
            + "\(file) misses them"
    }

    public var json: String {
        JSONLine.encode(self)
    }
}
