import FoundationEssentials
import Glibc
import PlumbDescription

/// What the capture session and its outputs throw. GStreamer's errors are mapped to these
/// cases where the engine meets them (`CaptureError+GStreamer.swift`); a camera that was
/// lost while streaming is `.camera` with `CameraError.Cause.lost`.
public enum CaptureError: Error, Sendable, CustomStringConvertible {
    /// The camera could not be opened or stopped delivering.
    case camera(CameraError)
    /// The session was closed (or failed) before or during the request.
    case closed
    /// Something did not happen in time (what, and the limit).
    case timedOut(String, Duration)
    /// The output is already attached to a session.
    case alreadyAttached(String)
    /// The output is not attached to this session.
    case notAttached(String)
    /// No installed encoder can make the format (names the elements looked for).
    case noEncoder(String)
    /// A recording target that cannot be written.
    case unwritable(path: String, reason: String)
    /// A value out of range (names the setting and the range).
    case invalidArgument(String)
    /// An output's file could not be written because its disk is full; `path` is the file
    /// when the failing sink names one.
    case storageFull(output: String, path: String?, PipelineFailure)
    /// The file system failed an output's file otherwise: it could not be opened, written,
    /// sought, synced or closed (an I/O error of the card, a file system gone read-only).
    case storageFailed(output: String, path: String?, PipelineFailure)
    /// An output's branch failed while running (its encoder, its muxer); the session itself keeps going.
    case outputFailed(output: String, PipelineFailure)
    /// A recording ended (it was stopped, or its session closed) before its first frame reached the file.
    case endedBeforeFirstFrame(output: String)
    /// A GStreamer failure while building or changing the pipeline.
    case pipeline(PipelineFailure)

    public var description: String {
        switch self {
        case .camera(let e): return e.description
        case .closed: return "the capture session is closed"
        case let .timedOut(what, limit): return "\(what) did not happen within \(limit)"
        case .alreadyAttached(let o): return "\(o) is already attached to a capture session"
        case .notAttached(let o): return "\(o) is not attached to this capture session"
        case .noEncoder(let text): return text
        case let .unwritable(path, reason): return "cannot write \(path): \(reason)"
        case .invalidArgument(let text): return text
        case let .storageFull(output, _, failure), let .storageFailed(output, _, failure), let .outputFailed(output, failure):
            return "\(output) failed: \(failure)"
        case .endedBeforeFirstFrame(let output): return "\(output) failed: the recording ended before its first frame"
        case .pipeline(let e): return e.description
        }
    }

    /// Whether a file could not be written (a full disk, an I/O error of the card), as
    /// opposed to an encoder or a camera failure: such a failure is waited out, not given up.
    public var isStorageFailure: Bool {
        switch self {
        case .storageFull, .storageFailed: return true
        default: return false
        }
    }
}
