import GStreamer
import PlumbLocation
import PlumbMedia

/// How a recording is made.
public struct RecordingOptions: Sendable {
    /// How mp4mux lays the file out; the default survives a power cut and ends as a normal MP4.
    public var container: RecordingContainer = .fragmentedThenFinalized
    /// mp4mux fragment length: a crash loses at most this much (fragmented containers).
    /// Also the keyframe interval when `keyframeInterval` is nil.
    public var fragmentDuration: Duration = .seconds(1)
    /// Frames between keyframes; nil means one per fragment.
    public var keyframeInterval: Int?
    /// Target bitrate in kbit/s; nil leaves the encoder's default.
    public var bitrate: Int?
    /// Writes the rotation into the MP4 track matrix where mp4mux ignores the
    /// `image-orientation` tag every recording sends it (before GStreamer 1.26; see
    /// `RecordingOrientationTag`). nil: no rewrite, so the matrix is identity there.
    public var matrixWriter: (any TrackMatrixWriter)? = MP4MatrixWriter()
    /// When the capture angle changes during the recording, close the file and go on in a
    /// new one (`NAME-2.mp4`, `NAME-3.mp4` ... next to the first, never over an existing
    /// file) that starts with a keyframe on the very next frame: no frame is lost or
    /// doubled, and every file plays upright with its own angle. `Recording.segments` and
    /// the facts list every file.
    public var splitOnRotation = false
    /// Turns the pixels instead of writing the angle as metadata (`videoflip` before the
    /// encoder; the track matrix stays identity), for players that ignore the matrix. It
    /// costs CPU: every frame is copied turned (on a small board, a noticeable share of a
    /// core at 1080p). The angle is the one latched at the start, as for the matrix.
    public var burnIn = false
    /// The recording's length on its frames' own clock: a frame stamped this long or more
    /// after the first one (less half a frame, against rounding) is not recorded, so N
    /// seconds at R fps are exactly N×R frames and N seconds, however late the stop comes.
    /// `Recording.lengthReached()` returns when the first frame past it arrives; the
    /// recording still ends with `stop()`. nil: no limit. Over every file of a split recording.
    public var length: Duration?
    /// Where the recording is, read when each of its files starts (`LocationProvider.current`):
    /// that location goes into the file (`moov/udta/©xyz`) and its facts. nil, or nil from
    /// it, records without a location.
    public var location: (@Sendable () -> GeoLocation?)?
    /// Which encoder: the best usable one (`EncoderChoice`), or a named one.
    public var encoder: EncoderPreference = .auto
    /// The H.264 profile and level asked of the encoder; nil leaves its defaults.
    public var profile: EncodingSettings.Profile?
    public var level: String?
    /// Whether an encoder element is installed; tests replace it to exercise the fallback.
    public var isAvailable: @Sendable (String) -> Bool = { Gst.hasElement($0) }
    /// A stream the recording's encoded frames also feed (byte-stream access units with their
    /// parameter sets in every keyframe, as `MainEncodingOutput` makes): the daemon's main
    /// encoding, which the recording's encoder then runs instead of an encoder of its own.
    /// Every segment feeds it in turn, each taking over from the one before at the cut
    /// (`EncodedStream`'s handover). Not with `burnIn`: turned pixels are not the main encoding's.
    public var feeds: EncodedStream?

    public init() {}
}
