import FoundationEssentials
import Glibc

/// What a photo is, as the one-shot command prints it and an HTTP header carries it.
public struct PhotoFacts: Sendable, Hashable, Codable, LocatedFacts {
    /// The camera's name (also EXIF Model).
    public var camera: String
    public var width: Int
    public var height: Int
    /// The JPEG's size in bytes.
    public var bytes: Int
    /// When the frame arrived, ISO 8601 in UTC with milliseconds.
    public var takenAt: String
    /// The orientation the file carries (as `RecordingFacts.orientation` for a recording):
    /// the EXIF Orientation written (1, 6, 3 or 8); pixels are never rotated.
    public var orientation: Int
    /// Whether GPS tags went in.
    public var gps: Bool
    /// The JPEG quality used (1-100); asked for, but not applied, with `cameraJPEG`.
    public var quality: Int
    /// The still is the MJPEG camera's own JPEG of the frame, EXIF added: nothing was
    /// decoded or re-encoded. nil when Plumb encoded it.
    public var cameraJPEG: Bool?
    /// The frame's digital zoom factor (also EXIF DigitalZoomRatio); nil at 1×.
    public var zoom: Double?
    // The camera's exposure read as the frame arrived (`CameraControlReading`), each only
    // when the camera reports it (a V4L2 control in force); also in the EXIF.
    /// Seconds (EXIF ExposureTime).
    public var exposureTime: Double?
    /// auto, manual, shutter-priority or aperture-priority (EXIF ExposureProgram, ExposureMode).
    public var exposureMode: String?
    /// auto or manual (EXIF WhiteBalance).
    public var whiteBalance: String?
    /// The ISO speed (EXIF PhotographicSensitivity, formerly ISOSpeedRatings).
    public var iso: Int?
    /// The gain in the driver's units; EXIF has no tag for it (its GainControl is a coarse
    /// low/high step against a reference this number does not give).
    public var gain: Int?
    // The location written, when `gps` (`LocatedFacts`).
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
        case camera, width, height, bytes, orientation, gps, quality, latitude, longitude, altitude, zoom
        case takenAt = "taken_at", cameraJPEG = "camera_jpeg"
        case exposureTime = "exposure_time", exposureMode = "exposure_mode", whiteBalance = "white_balance", iso, gain
        case fixAge = "fix_age_s", gpsTime = "gps_time", clockUnsynchronized = "clock_unsynchronized"
        case clockSynchronized = "clock_synchronized"
    }

    /// The facts as one line of JSON with sorted keys.
    public var json: String {
        JSONLine.encode(self)
    }
}

extension PhotoFacts {
    /// The exposure facts of what the camera reported (nil: a camera without controls).
    mutating func set(_ controls: CameraControlReading?) {
        guard let controls else { return }
        exposureTime = controls.exposureTime
        exposureMode = controls.exposureMode
        whiteBalance = controls.whiteBalance
        iso = controls.iso
        gain = controls.gain
    }
}
