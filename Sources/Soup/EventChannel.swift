import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// One server-sent event (the `text/event-stream` format).
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field (the type a browser's EventSource dispatches on); nil for "message".
    public var event: String?
    /// The `data:` payload; several lines become several `data:` fields.
    public var data: String
    /// The `id:` field, echoed back by reconnecting clients as Last-Event-ID.
    public var id: String?

    public init(event: String? = nil, data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }

    /// An event whose data is `value` as JSON on one line.
    public init(event: String, json value: some Encodable, id: String? = nil) throws {
        self.init(event: event, data: String(decoding: try JSON.encode(value), as: UTF8.self), id: id)
    }

    /// The wire form: fields, then a blank line. Newlines inside fields cannot
    /// break the framing: `data` is split into lines, `event` and `id` lose theirs.
    public var encoded: Data {
        var text = ""
        if let id { text += "id: \(Self.oneLine(id))\n" }
        if let event { text += "event: \(Self.oneLine(event))\n" }
        // CRLF, CR and LF all end a line in an event stream (CRLF is one Character in Swift).
        let lines = data.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        for line in lines.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        return Data((text + "\n").utf8)
    }

    private static func oneLine(_ s: String) -> String {
        s.replacing("\r\n", with: " ").replacing("\n", with: " ").replacing("\r", with: " ")
    }
}

/// Fans events out to every connected `GET /events` client.
///
/// Each subscriber gets its own stream with a bounded buffer: a client that
/// stops reading loses its oldest pending events rather than growing memory.
/// A comment line is sent every `heartbeat` so proxies keep the connection and
/// a vanished client is noticed even when it never sent a FIN. Subscribers
/// leave when their HTTP exchange ends (the stream's termination).
public final class EventChannel: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<Data>.Continuation
        let heartbeat: Task<Void, Never>
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    private let heartbeat: Duration
    private let bufferSize: Int

    public init(heartbeat: Duration = .seconds(15), bufferSize: Int = 256) {
        self.heartbeat = heartbeat
        self.bufferSize = bufferSize
    }

    /// Clients connected right now.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Sends `event` to every subscriber.
    public func publish(_ event: ServerSentEvent) {
        let data = event.encoded
        for continuation in subscribers.withLock({ $0.values.map(\.continuation) }) {
            continuation.yield(data)
        }
    }

    /// A new subscriber's byte stream: a `retry:` hint first (so the client has
    /// the headers and knows it is connected), then events and heartbeats.
    public func subscribe() -> AsyncStream<Data> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.yield(Data("retry: 3000\n\n".utf8))
        let interval = heartbeat
        let beat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                continuation.yield(Data(":\n\n".utf8))
            }
        }
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation, heartbeat: beat) }
        continuation.onTermination = { [weak self] _ in
            beat.cancel()
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// The `GET /events` response for a new subscriber.
    public func response() -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",  // tells nginx-style proxies not to buffer the stream
        ], body: .stream(subscribe()))
    }

    /// Ends every subscriber's stream (their responses complete normally).
    public func finishAll() {
        let all = subscribers.withLock { s in
            defer { s.removeAll() }
            return Array(s.values)
        }
        for s in all {
            s.heartbeat.cancel()
            s.continuation.finish()
        }
    }
}
