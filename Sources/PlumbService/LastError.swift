import FoundationEssentials
import Glibc
import Synchronization
import Plumb
import PlumbLocation

/// The last error `plumb serve` reported (an `error` event: a recording that stopped by
/// itself, the camera lost, a still not saved) and when, for `GET /status`: a monitor that
/// polls the status learns why something stopped without following `/events`.
public struct LastError: Sendable, Equatable, Encodable {
    public var message: String
    /// ISO 8601 in UTC, with milliseconds.
    public var at: String

    public init(message: String, at: Date = Date()) {
        self.message = message
        self.at = at.iso8601Milliseconds
    }
}

/// Keeps the newest `LastError`, written by whoever reports and read by `/status`.
final class LastErrorBox: Sendable {
    private let value = Mutex<LastError?>(nil)

    var current: LastError? { value.withLock { $0 } }

    func record(_ message: String) { value.withLock { $0 = LastError(message: message) } }
}
