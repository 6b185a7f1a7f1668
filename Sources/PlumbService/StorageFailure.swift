import GStreamer
import Plumb

/// Whether a recording ended because its file could not be written (a full disk, an I/O
/// error of the card), as opposed to an encoder or camera failure: a write error is
/// waited out (the recording resumes when there is room), the others give up.
enum StorageFailure {
    /// GST_RESOURCE_ERROR_OPEN_WRITE, _CLOSE, _WRITE, _SEEK, _SYNC, _NO_SPACE_LEFT: what a
    /// filesink reports when the file system fails it.
    static let writeCodes: Set<Int> = [6, 8, 10, 11, 12, 14]

    static func isStorage(_ error: any Error) -> Bool {
        guard case CaptureError.outputFailed(_, let failure) = error else { return false }
        return failure.domain == GStreamerError.resourceDomain && writeCodes.contains(failure.code)
    }

    /// True when one of the recording's files failed with a write error.
    static func failed(_ recording: Recording) -> Bool {
        recording.segments.contains { segment in
            if case .failure(let error)? = segment.finished.result { return isStorage(error) }
            return false
        }
    }
}
