import GStreamer
import PlumbRotation

/// Puts a rotation into the `tkhd` matrix of the MP4 the muxer writes, by rewriting the
/// header buffers leaving `muxerSource` (mp4mux's src pad). Installed once, before the
/// first frame, with the angle latched at the start of the recording. The rotation work
/// provides the implementation.
public protocol TrackMatrixWriter: Sendable {
    func install(on muxerSource: Pad, angle: RotationAngle) throws
}
