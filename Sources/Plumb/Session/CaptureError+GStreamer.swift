import GStreamer
import PlumbDescription

/// Where GStreamer's errors become the engine's: by their named codes, into the cases of
/// `CaptureError` and `PipelineFailure` (whose init from a GStreamerError is PlumbDescription's),
/// so that no layer above sees a domain or a code.
extension CaptureError {
    /// What a filesink reports when the file system fails it, besides a full disk.
    static let storageCodes: Set<GStreamerError.ResourceCode> = [.openWrite, .close, .write, .seek, .sync]

    /// Any error from building or running pipelines, as a CaptureError.
    static func wrap(_ error: any Error) -> CaptureError {
        switch error {
        case let e as CaptureError: return e
        case let e as CameraError: return .camera(e)
        case let e as GStreamerError: return .pipeline(PipelineFailure(e))
        case let e as PropertyError: return .pipeline(PipelineFailure(message: e.description))
        default: return .pipeline(PipelineFailure(message: "\(error)"))
        }
    }

    /// The error `error` of an element in `output`'s branch `bin`: a write failure of the
    /// file (named by the failing sink's `location`) or another failure of the branch.
    static func branch(_ output: String, failed error: GStreamerError, in bin: Bin) -> CaptureError {
        let failure = PipelineFailure(error)
        guard let code = error.resource, code == .noSpaceLeft || storageCodes.contains(code) else {
            return .outputFailed(output: output, failure)
        }
        let sink = error.sourceName.flatMap { bin.element(named: $0) }
        let path = sink.flatMap { $0.hasProperty("location") ? try? $0.get("location", as: String.self) : nil }
        return code == .noSpaceLeft ? .storageFull(output: output, path: path, failure)
            : .storageFailed(output: output, path: path, failure)
    }
}
