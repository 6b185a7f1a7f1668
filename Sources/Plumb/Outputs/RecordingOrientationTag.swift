import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import PlumbMedia
import PlumbRotation

/// A recording's angle as the muxer's own metadata: every recording sends its latched angle
/// to mp4mux as a stream-scope `image-orientation` tag ("rotate-90") on the video track's pad,
/// just before the first frame. GStreamer 1.26's mp4mux writes the track matrix from it;
/// 1.22's ignores it, and there Plumb's own `tkhd` rewrite (`MP4MatrixWriter`) does the work.
///
/// Which of the two applies is decided here and nowhere else: `muxerWritesMatrix` muxes a few
/// frames with the tag, once per process, and reads the matrix back — a capability, not a
/// version number, so a backport or a regression is seen as what it is.
public enum RecordingOrientationTag {
    /// Whether this GStreamer's mp4mux turns the `image-orientation` tag into the track matrix
    /// (probed on first use; false if the probe cannot run, which keeps Plumb's rewrite on).
    public static var muxerWritesMatrix: Bool { probed }

    private static let probed: Bool = probe()

    /// Pushes the tag for `angle` out of `pad` (the pad feeding the muxer's video sink pad) just
    /// before its next buffer, once: on the streaming thread, after caps and segment, so the
    /// muxer has it before it writes its first header.
    static func send(_ angle: RotationAngle, before pad: Pad) throws {
        var tags = TagList()
        try tags.set("image-orientation", angle.imageOrientationTag)
        pad.addProbe(.buffer) { [tags] pad, _ in
            _ = pad.push(.tag(tags))
            return .remove
        }
    }

    /// Muxes three frames with a 90° tag and no rewrite, and reads the matrix back.
    private static func probe() -> Bool {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("plumb-orientation-probe-\(getpid())-\(UUID().uuidString).mp4").path
        defer { unlink(path) }
        do {
            let pipeline = try Pipeline.parse(
                "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48,framerate=30/1 "
                    + "! x264enc speed-preset=ultrafast ! h264parse name=parser ! mp4mux "
                    + "! filesink name=file location=\(path)")
            defer { try? pipeline.setState(.null) }
            guard let parser = pipeline.element(named: "parser")?.staticPad("src"),
                  let file = pipeline.element(named: "file")?.staticPad("sink") else { return false }
            try send(.degrees90, before: parser)
            // The muxer writes its movie header before it passes EOS on.
            let ended = DispatchSemaphore(value: 0)
            file.addProbe(.eventDownstream) { info in
                if info.isEOS { ended.signal() }
                return .ok
            }
            try pipeline.setState(.playing)
            guard ended.wait(timeout: .now() + 5) == .success else { return false }
            try pipeline.setState(.null)
            return (try? MediaInspector.inspect(path: path).rotation) == .degrees90
        } catch {
            return false
        }
    }
}
