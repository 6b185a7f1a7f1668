import Foundation
import GStreamer

/// What the capture session and its outputs throw.
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
    /// An output's branch failed while running; the session itself keeps going.
    case outputFailed(output: String, GStreamerError)
    /// A GStreamer failure while building or changing the pipeline.
    case pipeline(GStreamerError)

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
        case let .outputFailed(output, error): return "\(output) failed: \(error)"
        case .pipeline(let e): return e.description
        }
    }
}

extension CaptureError {
    /// Any error from building or running pipelines, as a CaptureError.
    static func wrap(_ error: any Error) -> CaptureError {
        switch error {
        case let e as CaptureError: return e
        case let e as CameraError: return .camera(e)
        case let e as GStreamerError: return .pipeline(e)
        case let e as PropertyError: return .pipeline(GStreamerError(message: e.description))
        default: return .pipeline(GStreamerError(message: "\(error)"))
        }
    }
}
