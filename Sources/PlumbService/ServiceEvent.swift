import FoundationEssentials
import Glibc
import Soup
import Plumb

/// What `GET /events` tells clients, as server-sent events with JSON data:
///
/// | event               | data                                          |
/// |---------------------|-----------------------------------------------|
/// | `orientation`       | `{"angle": 90}`                               |
/// | `recording-started` | `{"file": "NAME"}`                            |
/// | `recording-stopped` | `{"file": "NAME", "facts": {...}}`            |
/// | `photo`             | `{"file": "NAME", "facts": {...}}` (SIGUSR1)  |
/// | `event`             | `{"file": "NAME", "facts": {...}}` (an event clip is finished) |
/// | `error`             | `{"message": "..."}`                          |
/// | `barcode`           | `{"symbology": "qr", "text": "...", "quality": 1, "bounds": {...}, "time": "...", "photo": "NAME"}` (`[scan]`; `base64` for data that is not UTF-8) |
/// | `camera-switched`   | `{"from": "test", "to": "image:FILE", "restartSeconds": 0.03, "facing": "back"}` (`POST /camera`) |
/// | `controls`          | `{"brightness": 200, "exposure_time_absolute": 100}` (driver name → the value read back; `PATCH /controls`, the lock, `[camera] controls` at open) |
/// | `motion`            | `{"motion": "started", "fraction": 0.031, "boxes": [{"x": 0.1, "y": 0.2, "width": 0.1, "height": 0.1}], "time": "..."}` (`[motion]`; `ended` too) |
/// | `deleted`           | `{"file": "NAME", "bytes": N, "reason": "max-bytes"}` (retention; reason also `min-free-bytes`, `max-age`) |
public enum ServiceEvent: Sendable {
    case orientationChanged(angle: Int)
    case recordingStarted(file: String)
    case recordingStopped(file: String, facts: (any Encodable & Sendable)?)
    case photoSaved(file: String, facts: (any Encodable & Sendable)?)
    case eventClip(file: String, facts: (any Encodable & Sendable)?)
    case error(message: String)
    /// Retention deleted a recording (`Retention`).
    case deleted(file: String, bytes: Int64, reason: String)
    /// A code the scanner read (`ScanService`).
    case barcode(ScanRecord)
    case cameraSwitched(CameraSwitchRecord)
    /// Control values Plumb changed, by driver name, as read back (`CameraControlKeeper`).
    case controls([String: CameraControlEntry.Value])
    /// Motion started or ended (`MotionService`).
    case motion(MotionRecord)

    public var name: String {
        switch self {
        case .orientationChanged: "orientation"
        case .recordingStarted: "recording-started"
        case .recordingStopped: "recording-stopped"
        case .photoSaved: "photo"
        case .eventClip: "event"
        case .error: "error"
        case .deleted: "deleted"
        case .barcode: "barcode"
        case .cameraSwitched: "camera-switched"
        case .controls: "controls"
        case .motion: "motion"
        }
    }

    /// The event on the wire; `id` numbers events so clients can spot gaps.
    public func serverSentEvent(id: Int) -> ServerSentEvent {
        let data: Data
        do {
            switch self {
            case .orientationChanged(let angle):
                data = try JSON.encode(["angle": angle])
            case .recordingStarted(let file):
                data = try JSON.encode(["file": file])
            case let .recordingStopped(file, facts), let .photoSaved(file, facts), let .eventClip(file, facts):
                data = try JSON.encode(FileFacts(file: file, facts: facts.map(AnyEncodable.init)))
            case .error(let message):
                data = try JSON.encode(["message": message])
            case let .deleted(file, bytes, reason):
                data = try JSON.encode(Deleted(file: file, bytes: bytes, reason: reason))
            case .barcode(let record):
                data = try JSON.encode(record)
            case .cameraSwitched(let record):
                data = try JSON.encode(record)
            case .controls(let values):
                data = try JSON.encode(values)
            case .motion(let record):
                data = try JSON.encode(record)
            }
        } catch {
            data = (try? JSON.encode(["message": "cannot encode the \(name) event: \(error)"])) ?? Data()
        }
        return ServerSentEvent(event: name, data: String(decoding: data, as: UTF8.self), id: String(id))
    }
}

private struct Deleted: Encodable {
    var file: String
    var bytes: Int64
    var reason: String
}

private struct FileFacts: Encodable {
    var file: String
    var facts: AnyEncodable?
}

/// Encodes whatever it wraps: facts come from the session as `any Encodable`.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
