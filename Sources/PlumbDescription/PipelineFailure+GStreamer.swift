import GStreamer

/// Where a GStreamer error becomes a `PipelineFailure`: its words, its element, whether the
/// disk is full. For the runner and the engine (`CaptureError+GStreamer.swift`) only.
extension PipelineFailure {
    package init(_ error: GStreamerError) {
        self.init(message: error.message, detail: error.debug, element: error.source,
                  diskFull: error.resource == .noSpaceLeft)
    }
}
