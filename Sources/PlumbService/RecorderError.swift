import Plumb

/// Why the continuous recorder refused a request or could not make its file. The recorder
/// says what happened; the HTTP routes choose the status and the advice
/// (`APIError.init(_:)`).
public enum RecorderError: Error, Sendable, CustomStringConvertible {
    /// A recording runs already, into `file` (nil while its first file is being made).
    case alreadyRecording(file: String?)
    /// A stop is finalizing the files.
    case stopping
    /// No camera runs, so there is nothing to record.
    case noCamera
    /// Nothing is being recorded.
    case notRecording
    /// No room on the disk, even after retention: why.
    case noRoom(String)
    /// The engine could not start the file.
    case cannotRecord(any Error)

    public var description: String {
        switch self {
        case .alreadyRecording(let file): "already recording to \(file ?? "a file")"
        case .stopping: "the recording is being stopped"
        case .noCamera: "the camera is not running"
        case .notRecording: "not recording"
        case .noRoom(let why): why
        case .cannotRecord(let error): "\(error)"
        }
    }
}

extension APIError {
    /// The answer to a request the recorder refused or could not carry out.
    init(_ error: RecorderError) {
        switch error {
        case .alreadyRecording(let file):
            self = .busy("already recording to \(file ?? "a file"); POST /recording/stop first")
        case .stopping:
            self = .busy("the recording is being stopped; try again once POST /recording/stop has answered")
        case .noCamera:
            self = .cameraUnavailable("the camera is not running, so nothing can be recorded now; try again in a moment")
        case .notRecording:
            self = .busy("not recording; POST /recording/start first")
        case .noRoom(let why):
            self = .insufficientStorage(why)
        case .cannotRecord(let error):
            self = .from(error)
        }
    }
}
