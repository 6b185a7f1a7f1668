internal import CSoup
internal import CSoupShim

/// Handlers on one SoupServerMessage's signals, disconnected together.
///
/// Each handler keeps its closure (and what the closure holds) until `disconnectAll`,
/// which the owner calls when it is done with the message: that breaks the cycle.
/// Used on the server context's thread only, where soup emits the signals.
final class MessageSignals {
    private let message: OpaquePointer  // SoupServerMessage; the owner holds the reference
    private var ids: [gulong] = []

    init(_ message: OpaquePointer) { self.message = message }

    /// A signal without arguments: "connected", "got-body", "wrote-headers",
    /// "wrote-chunk", "finished", "disconnected".
    func on(_ signal: String, _ body: @escaping () -> Void) {
        let handler = Unmanaged.passRetained(Handler(body)).toOpaque()
        ids.append(plumb_server_message_connect(message, signal, { _, userData in
            guard let userData else { return }
            Unmanaged<Handler<() -> Void>>.fromOpaque(userData).takeUnretainedValue().body()
        }, handler, { userData in
            if let userData { Unmanaged<Handler<() -> Void>>.fromOpaque(userData).release() }
        }))
    }

    /// "wrote-body-data": `body` gets the byte count soup just wrote.
    func onWroteBodyData(_ body: @escaping (Int) -> Void) {
        let handler = Unmanaged.passRetained(Handler(body)).toOpaque()
        ids.append(plumb_server_message_connect_wrote_body_data(message, { _, size, userData in
            guard let userData else { return }
            Unmanaged<Handler<(Int) -> Void>>.fromOpaque(userData).takeUnretainedValue().body(Int(size))
        }, handler, { userData in
            if let userData { Unmanaged<Handler<(Int) -> Void>>.fromOpaque(userData).release() }
        }))
    }

    /// Idempotent.
    func disconnectAll() {
        for id in ids { g_signal_handler_disconnect(UnsafeMutableRawPointer(message), id) }
        ids = []
    }

    private final class Handler<Body> {
        let body: Body
        init(_ body: Body) { self.body = body }
    }
}
