import GStreamer
import PlumbDescription

/// The engine as a whole, for what a program does once before using any part of it.
public enum CaptureEngine {
    /// Loads GStreamer and its plugin registry (gst_init_check), once per process. The
    /// engine's parts do it themselves when first used; a daemon calls it at start so a
    /// broken installation fails there, not at its first capture.
    public static func initialize() throws(CaptureError) {
        do { try Gst.initialize() } catch { throw .pipeline(PipelineFailure(error)) }
    }

    /// The GStreamer the engine runs on, e.g. "GStreamer 1.22.0" (gst_version_string).
    public static var gstreamerVersion: String { Gst.versionString }
}
