import Soup
import Plumb

/// The control API's errors: each a status and a message that says what to fix,
/// sent as `{"error": "..."}`. Handlers (and the session behind them) throw these.
public enum APIError: Error, Sendable, Equatable, HTTPResponseConvertible, CustomStringConvertible {
    /// 400: a parameter is missing or out of range.
    case badRequest(String)
    /// 403: the request names something this API may not touch (an `image:` file outside
    /// `[camera] image-folder`).
    case forbidden(String)
    /// 404: no such recording, no such endpoint.
    case notFound(String)
    /// 409: the session is busy with something that excludes this request
    /// (a recording is already running, none is running).
    case busy(String)
    /// 502: the device behind the camera refused or failed (a driver's EIO).
    case deviceFailed(String)
    /// 503: the camera cannot deliver frames right now.
    case cameraUnavailable(String)
    /// 507: no room to write a recording (the disk is full, even after retention).
    case insufficientStorage(String)
    /// 500: a failure that is Plumb's, not the client's.
    case internalError(String)

    public var status: Int {
        switch self {
        case .badRequest: 400
        case .forbidden: 403
        case .notFound: 404
        case .busy: 409
        case .deviceFailed: 502
        case .cameraUnavailable: 503
        case .internalError: 500
        case .insufficientStorage: 507
        }
    }

    public var message: String {
        switch self {
        case .badRequest(let m), .forbidden(let m), .notFound(let m), .busy(let m), .deviceFailed(let m), .cameraUnavailable(let m), .internalError(let m),
             .insufficientStorage(let m): m
        }
    }

    public var response: HTTPResponse { .error(status, message) }

    public var description: String { "\(status): \(message)" }
}
