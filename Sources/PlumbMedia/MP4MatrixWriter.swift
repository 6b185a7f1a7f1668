/// Plumb's own way to put a recording's orientation into its MP4: the `tkhd` matrix of
/// the video track, rewritten in the header buffers mp4mux pushes (`Probe`, in the engine),
/// or in a finished file (`rewrite(fileAt:rotation:)`). The one `TrackMatrixWriter` recordings use.
public struct MP4MatrixWriter: Sendable {
    public init() {}
}
