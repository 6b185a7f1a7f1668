import Plumb

/// Whether a recording ended because its file could not be written (a full disk, an I/O
/// error of the card), as opposed to an encoder or camera failure: a write error is
/// waited out (the recording resumes when there is room), the others give up.
enum StorageFailure {
    /// The engine's `storageFull` and `storageFailed`: what a filesink reports when the file system fails it.
    static func isStorage(_ error: any Error) -> Bool {
        (error as? CaptureError)?.isStorageFailure ?? false
    }

    /// True when one of the recording's files failed with a write error.
    static func failed(_ recording: Recording) -> Bool {
        recording.segments.contains { segment in
            if case .failure(let error)? = segment.finished.result { return isStorage(error) }
            return false
        }
    }
}
