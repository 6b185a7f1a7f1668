import FoundationEssentials
import Glibc
import Synchronization
import Plumb

/// The camera as the service sees it at this moment: the running session, or why there
/// is none (still opening, failed and waiting to retry, shutting down). Requests read it;
/// only the daemon's camera supervisor changes it.
public final class CameraSlot: Sendable {
    public enum State: Sendable {
        case opening
        case running(CaptureSession)
        /// The camera failed or could not be opened; the supervisor retries.
        case unavailable(String)
        case closed
    }

    private let state = Mutex(State.opening)
    /// The camera `POST /camera` switched to, which a reopening after a loss opens again
    /// (nil: `[camera] device`, the one at start).
    private let switched = Mutex<CameraSource?>(nil)
    var switchedCamera: CameraSource? {
        get { switched.withLock { $0 } }
        set { switched.withLock { $0 = newValue } }
    }
    /// The size the session ran at after that switch (nil: `[camera] size`).
    private let switchedSizeValue = Mutex<VideoSize?>(nil)
    var switchedSize: VideoSize? {
        get { switchedSizeValue.withLock { $0 } }
        set { switchedSizeValue.withLock { $0 = newValue } }
    }

    public init() {}

    public var current: State { state.withLock { $0 } }

    func set(_ new: State) { state.withLock { $0 = new } }

    /// The running session, or 503 saying why there is none.
    public func session() throws(APIError) -> CaptureSession {
        switch current {
        case .running(let session): return session
        case .opening: throw .cameraUnavailable("the camera is still opening; try again in a moment")
        case .unavailable(let why):
            throw .cameraUnavailable("the camera is unavailable: \(why); plumb serve keeps trying to open it")
        case .closed: throw .cameraUnavailable("plumb serve is shutting down")
        }
    }

    /// "running", "opening", "unavailable", "closed".
    public var stateName: String {
        switch current {
        case .opening: "opening"
        case .running: "running"
        case .unavailable: "unavailable"
        case .closed: "closed"
        }
    }

    /// Why the camera is unavailable, when it is.
    public var problem: String? {
        if case .unavailable(let why) = current { return why }
        return nil
    }
}

extension APIError {
    /// An engine error as the API reports it: a camera that is gone or closed is 503, a
    /// wrong value 400, the recorder's refusals as `init(_: RecorderError)` says, anything else 500.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let e as APIError: return e
        case let e as RecorderError: return APIError(e)
        case CaptureError.closed:
            return .cameraUnavailable("the camera closed while the request ran; try again in a moment")
        case CaptureError.camera(let e):
            return .cameraUnavailable(e.description)
        case CaptureError.timedOut(let what, let limit):
            return .cameraUnavailable("\(what) did not happen within \(limit): the camera is not delivering frames")
        case CaptureError.invalidArgument(let text):
            return .badRequest(text)
        default:
            return .internalError("\(error)")
        }
    }
}
