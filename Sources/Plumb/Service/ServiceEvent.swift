import Foundation
import Soup

/// What `GET /events` tells clients, as server-sent events with JSON data:
///
/// | event               | data                                          |
/// |---------------------|-----------------------------------------------|
/// | `orientation`       | `{"angle": 90}`                               |
/// | `recording-started` | `{"file": "NAME"}`                            |
/// | `recording-stopped` | `{"file": "NAME", "facts": {...}}`            |
/// | `photo`             | `{"file": "NAME", "facts": {...}}` (SIGUSR1)  |
/// | `error`             | `{"message": "..."}`                          |
public enum ServiceEvent: Sendable {
    case orientationChanged(angle: Int)
    case recordingStarted(file: String)
    case recordingStopped(file: String, facts: (any Encodable & Sendable)?)
    case photoSaved(file: String, facts: (any Encodable & Sendable)?)
    case error(message: String)

    public var name: String {
        switch self {
        case .orientationChanged: "orientation"
        case .recordingStarted: "recording-started"
        case .recordingStopped: "recording-stopped"
        case .photoSaved: "photo"
        case .error: "error"
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
            case let .recordingStopped(file, facts), let .photoSaved(file, facts):
                data = try JSON.encode(FileFacts(file: file, facts: facts.map(AnyEncodable.init)))
            case .error(let message):
                data = try JSON.encode(["message": message])
            }
        } catch {
            data = (try? JSON.encode(["message": "cannot encode the \(name) event: \(error)"])) ?? Data()
        }
        return ServerSentEvent(event: name, data: String(decoding: data, as: UTF8.self), id: String(id))
    }
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
