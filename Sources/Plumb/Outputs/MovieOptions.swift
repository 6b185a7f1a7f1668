import GStreamer

/// How a recording is made.
public struct MovieOptions: Sendable {
    /// mp4mux fragment length: a crash loses at most this much.
    public var fragmentDuration: Duration = .seconds(1)
    /// Frames between keyframes; nil means one per fragment.
    public var keyframeInterval: Int?
    /// Target bitrate in kbit/s; nil leaves the encoder's default.
    public var bitrate: Int?
    /// Writes the rotation into the MP4 track matrix (mp4mux before GStreamer 1.26 ignores
    /// the orientation tag); nil leaves it identity.
    public var matrixWriter: (any TrackMatrixWriter)? = MP4TrackMatrixWriter()
    /// Whether an encoder element is installed; tests replace it to exercise the fallback.
    public var isAvailable: @Sendable (String) -> Bool = { Gst.hasElement($0) }

    public init() {}
}
