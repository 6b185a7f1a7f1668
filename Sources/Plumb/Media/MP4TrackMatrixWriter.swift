import GStreamer

/// The `TrackMatrixWriter` recordings use: an `MP4OrientationWriter` probe on the
/// muxer's src pad, for the angle latched when the recording started.
public struct MP4TrackMatrixWriter: TrackMatrixWriter {
    public init() {}

    public func install(on muxerSource: Pad, angle: RotationAngle) throws {
        // The probe holds the writer for as long as the pad lives.
        MP4OrientationWriter(rotation: angle).install(on: muxerSource)
    }
}
