internal import CSoup
internal import CSoupShim
import Dispatch
import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
import GLib
#endif

/// One client connection, from accept to close: what libsoup 3.2 does not do for it.
///
/// - **Closing kept-alive connections.** After a response on a kept-alive connection,
///   soup 3.2 (Debian 12) makes the message that waits for the next request without a
///   completion callback; it gets one only with the request's first byte. A client
///   that closes the idle connection makes soup finish that message silently and
///   never disconnect: the socket stays in CLOSE-WAIT, in soup's client list, for
///   good — one descriptor per kept-alive connection (soup-server-message-io-http1.c,
///   `soup_server_message_io_http1_finished`; fixed upstream in 3.3.0, "server: do not
///   leak idle connections closed by the client").
/// - **Timeouts.** Soup 3 has none: a client that sends nothing, half a request, or
///   stops taking its response would hold its connection forever.
/// - **Oversized heads.** Soup drops a head over 64 KiB with a reset and no answer.
///
/// So while soup waits for a request, the server watches the socket itself, at a
/// priority above soup's own sources so it sees the bytes (or the end of the stream)
/// first. It peeks at the head without consuming it: once the whole head is there the
/// socket is soup's again; a head over the limit is answered 431 (or 414) by the
/// server; the end of the stream closes the connection. A deadline closes a
/// connection that does not deliver a whole request in time or stops taking its
/// response. Closing goes through soup_server_message_steal_connection: the one public
/// call that makes soup let go of a connection (it leaves soup's client list).
///
/// `@unchecked Sendable` (for the timer's closure): every member is used on the
/// server context's thread only — soup's signals and the watches are dispatched there.
final class ClientConnection: @unchecked Sendable {
    /// The connection's socket (a reference held): the key soup's messages share.
    let socket: UnsafeMutablePointer<GSocket>
    private unowned let core: ServerCore

    /// The request in progress, or the last one answered (one reference held):
    /// the handle to steal the connection with, and whose signals say what happens.
    private var message: OpaquePointer?
    private var signals: MessageSignals?
    private var isOpen = true
    /// An exchange (a handler) answers the current request: it runs the send clock.
    private var answeredByHandler = false

    // The head gate.
    private var gate: UnsafeMutablePointer<GSource>?
    /// The first request's message is paused until its head is in (soup would read it at once).
    private var pausedForHead = false
    /// Bytes of the head seen at the last look.
    private var peeked = 0
    /// SO_RCVLOWAT as set: the socket is readable once more than the head seen so far arrived.
    private var lowWater = 1

    // The deadline.
    private struct Deadline {
        var since: ContinuousClock.Instant
        var timeout: Duration
        /// A send deadline counts from the last bytes written; a request deadline from its start.
        var extendsOnProgress: Bool
    }
    private var deadline: Deadline?
    private var timer: ContextTimer?

    init(socket: UnsafeMutablePointer<GSocket>, core: ServerCore) {
        self.socket = socket
        self.core = core
        g_object_ref(UnsafeMutableRawPointer(socket))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(socket)) }

    // MARK: Soup's events

    /// "request-started": `message` is the connection's next request; `first` at accept.
    func adopt(_ message: OpaquePointer, first: Bool) {
        releaseMessage()
        g_object_ref(UnsafeMutableRawPointer(message))
        self.message = message
        answeredByHandler = false
        // The handlers hold this connection (soup may drop the last other reference while
        // one runs); `releaseMessage` disconnects them, on "disconnected" at the latest.
        let signals = MessageSignals(message)
        self.signals = signals
        if first {
            // Runs before soup's own "connected" handler starts reading.
            signals.on("connected") { [self] in
                guard let message = self.message else { return }
                soup_server_message_pause(message)
                pausedForHead = true
                openGate()
            }
        } else {
            // A kept-alive connection's next request: the gate let its head through (or
            // soup had it buffered already); the deadline set when the last response
            // ended goes on until this request is in.
            closeGate()
        }
        signals.on("got-body") { [self] in requestRead() }
        signals.on("wrote-headers") { [self] in progress() }
        signals.onWroteBodyData { [self] _ in progress() }
        signals.on("finished") { [self] in responseFinished() }
        signals.on("disconnected") { [self] in disconnected() }
        if deadline == nil { startDeadline(core.options.idleTimeout, extendsOnProgress: false) }
    }

    /// An exchange takes the current request: it says when the response is being sent.
    func handOver() { answeredByHandler = true }

    /// "got-body": the whole request is in. Soup writes its own answers at once;
    /// a handler's answer is timed by its exchange.
    private func requestRead() {
        stopDeadline()
        if !answeredByHandler { sending() }
    }

    /// "finished": the response is out. Unless soup disconnects right after this signal
    /// (no keep-alive), the connection now waits for its next request.
    private func responseFinished() {
        answeredByHandler = false
        stopDeadline()
        startDeadline(core.options.idleTimeout, extendsOnProgress: false)
        openGate()
    }

    /// "disconnected": soup closed the connection, or it was stolen.
    private func disconnected() {
        isOpen = false
        stopDeadline()
        closeGate()
        releaseMessage()
        core.connectionEnded(self)
    }

    private func releaseMessage() {
        signals?.disconnectAll()
        signals = nil
        if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
        message = nil
    }

    // MARK: Sending (the exchange's part)

    /// Soup has response bytes to write: the client must take some every `sendTimeout`.
    func sending() { startDeadline(core.options.sendTimeout, extendsOnProgress: true) }

    /// Everything handed to soup is written; the next bytes depend on the handler.
    func waitingForBody() { stopDeadline() }

    private func progress() {
        if deadline?.extendsOnProgress == true { deadline?.since = .now }
    }

    // MARK: Closing

    /// Stops tracking a connection soup has let go of (the server stopped).
    func forget() {
        guard isOpen else { return }
        isOpen = false
        disconnected()
    }

    /// Closes the connection: soup lets go of it (its messages get "disconnected")
    /// and the socket is closed. Idempotent.
    func close() {
        guard let stream = steal() else { return }
        g_io_stream_close(stream, nil, nil)
        g_object_unref(stream)
    }

    /// Takes the connection from soup; nil once it is closed. Only while soup still
    /// has it: stealing a connection soup already disconnected would release soup's
    /// reference to it a second time.
    private func steal() -> UnsafeMutablePointer<GIOStream>? {
        guard isOpen, let message else { return nil }
        g_object_ref(UnsafeMutableRawPointer(message))  // "disconnected" releases ours during the call
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let stream = soup_server_message_steal_connection(message)
        if isOpen { disconnected() }  // soup emits "disconnected" on steal; in case it did not
        return stream
    }

    // MARK: The deadline

    private func startDeadline(_ timeout: Duration, extendsOnProgress: Bool) {
        deadline = Deadline(since: .now, timeout: timeout, extendsOnProgress: extendsOnProgress)
        schedule(after: timeout)
    }

    private func stopDeadline() {
        deadline = nil
        timer?.cancel()
        timer = nil
    }

    private func schedule(after delay: Duration) {
        timer?.cancel()
        timer = core.context.schedule(after: delay) { [weak self] in self?.deadlineReached() }
    }

    private func deadlineReached() {
        guard let deadline else { return }
        let due = deadline.since + deadline.timeout
        let now = ContinuousClock.now
        if now < due { return schedule(after: due - now) }  // bytes went out meanwhile
        close()
    }

    // MARK: The head gate

    /// Watches the socket while soup waits for a request, above soup's priority.
    private func openGate() {
        guard gate == nil, isOpen else { return }
        peeked = 0
        let box = Unmanaged.passRetained(self).toOpaque()
        gate = plumb_socket_watch_attach(
            socket, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), G_PRIORITY_HIGH,
            core.context.pointer, { _, _, userData in
                guard let userData else { return 0 }
                return Unmanaged<ClientConnection>.fromOpaque(userData).takeUnretainedValue().lookAtHead() ? 1 : 0
            }, box, { userData in
                if let userData { Unmanaged<ClientConnection>.fromOpaque(userData).release() }
            })
    }

    private func closeGate() {
        if let gate {
            g_source_destroy(gate)
            g_source_unref(gate)
            self.gate = nil
        }
        if lowWater != 1, isOpen { setLowWater(1) }
    }

    /// The socket is readable while soup waits for a request: peek at what came.
    /// True to keep watching.
    private func lookAtHead() -> Bool {
        let limit = core.options.maxRequestHeadBytes
        let buffer = core.headBuffer
        let n = recv(g_socket_get_fd(socket), buffer.baseAddress, limit + 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
        // Readable with nothing new (SO_RCVLOWAT asks for more): the client shut its side
        // mid-head, or the connection failed. Either way no request will come.
        if n <= 0 || n == peeked {
            closeGate()
            close()
            return false
        }
        switch RequestHead.scan(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), limit: limit) {
        case .complete:
            closeGate()
            if pausedForHead, let message {
                pausedForHead = false
                soup_server_message_unpause(message)
            }
        case .incomplete:
            peeked = n
            setLowWater(n + 1)
            return true
        case .tooLarge(let status):
            closeGate()
            refuse(status: status)
        }
        return false
    }

    /// SO_RCVLOWAT: poll reports the socket readable only once it holds `bytes` (or at
    /// its end), so waiting for the rest of a head does not spin on what was seen.
    private func setLowWater(_ bytes: Int) {
        var value = Int32(bytes)
        setsockopt(g_socket_get_fd(socket), SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
        lowWater = bytes
    }

    /// Answers an oversized head itself (soup would reset the connection) and closes.
    private func refuse(status: Int) {
        let answer = RequestHead.refusal(status: status, limit: core.options.maxRequestHeadBytes,
                                         serverHeader: core.options.serverHeader, date: ServerCore.httpDate())
        let socket = self.socket
        guard let stream = steal() else { return }
        core.linger(socket: socket, stream: stream, answer: answer)
    }
}
