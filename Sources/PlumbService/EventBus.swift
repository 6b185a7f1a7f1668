import Synchronization
import Soup
import Plumb

/// Where every part of `plumb serve` says what happened. Built first and handed both to
/// those that publish (the recorder, retention, event clips, scans, the camera routes, the
/// daemon) and to the control API that serves it on `GET /events`: neither side needs the
/// other to exist. Keeps the last `error` for `GET /status`.
public final class EventBus: Sendable {
    /// The `GET /events` clients.
    public let channel: EventChannel
    /// The last `error` event, and when.
    let lastError = LastErrorBox()
    /// Numbers the events, so clients can spot gaps.
    private let nextID = Atomic(1)

    public init(channel: EventChannel = EventChannel()) {
        self.channel = channel
    }

    /// Sends an event to every `GET /events` client.
    public func publish(_ event: ServiceEvent) {
        if case .error(let message) = event { lastError.record(message) }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        channel.publish(event.serverSentEvent(id: id))
    }
}
