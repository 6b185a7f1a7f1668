internal import CSoup
internal import CSoupShim
import FoundationEssentials
import Glibc
import PlumbBase
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One request answered asynchronously: its SoupServerMessage stays paused while
/// the handler's task runs, then gets the response head and body.
///
/// Life: `start` (paused, handler task running, socket watched) -> `respond`
/// (head written, body bytes / file chunks / stream chunks, each written before
/// the next is read) -> soup's "finished" or "disconnected" -> `end` (task
/// cancelled, watches removed, message released). While soup has bytes of it to
/// write, its connection's send deadline runs (a client that stops reading is dropped).
///
/// `@unchecked Sendable`: the task holds it, but every member touching soup or
/// mutable state is only used on the server context's thread (via `onContext`
/// or soup's own callbacks).
final class Exchange: @unchecked Sendable {
    private let message: OpaquePointer  // SoupServerMessage, one reference held until `end`
    private let core: ServerCore
    private let connection: ClientConnection
    private let isHead: Bool
    /// The body is pumped chunk by chunk (a file, a stream): between chunks soup waits for us.
    private var pumping = false

    private var ended = false
    /// `ended`, readable from the task: once set, the task never queues work on
    /// the context again (a context nobody iterates would keep it forever).
    private let endedFlag = Atomic(false)
    private(set) var task: Task<Void, Never>?
    private var signals: MessageSignals?
    private var socketWatch: UnsafeMutablePointer<GSource>?
    /// The pump waiting for soup to take the last chunk.
    private var pendingWrite: CheckedContinuation<Bool, Never>?

    init(message: OpaquePointer, core: ServerCore, connection: ClientConnection, isHead: Bool) {
        self.message = message
        self.core = core
        self.connection = connection
        self.isHead = isHead
        g_object_ref(UnsafeMutableRawPointer(message))
        // The handlers hold the exchange until `end` disconnects them.
        let signals = MessageSignals(message)
        signals.on("finished") { [self] in end() }
        signals.on("disconnected") { [self] in end() }
        signals.on("wrote-headers") { [self] in
            if pumping && pendingWrite == nil { connection.waitingForBody() }
        }
        signals.on("wrote-chunk") { [self] in
            // Soup took the chunk: the pump (if any) reads the next one, soup waits for it.
            connection.waitingForBody()
            resumePending(true)
        }
        self.signals = signals
    }

    /// Context thread: runs `produce` as a task and sends what it returns.
    func start(_ produce: @escaping @Sendable () async -> HTTPResponse) {
        watchSocket()
        task = Task { [self] in
            let response = await produce()
            await respond(response)
        }
    }

    /// Context thread: the server is stopping.
    func cancel() { end() }

    // MARK: Responding (task)

    private func respond(_ original: HTTPResponse) async {
        var response = original
        var delivered = false
        var file: OpenFile?
        var fileSize: Int64 = 0
        var removeAfterwards: String?
        if case let .file(path, removeWhenDone) = response.body {
            if removeWhenDone { removeAfterwards = path }
            if let (handle, size) = Exchange.open(path) {
                file = handle
                fileSize = size
            } else {
                // What the owner asked to send is not what goes: `onFinished` will say false.
                response = .error(404, "no such file: \(Path.name(path))")
            }
        }
        defer {
            file?.close()
            original.onFinished?(delivered)
            if let removeAfterwards { unlink(removeAfterwards) }
        }

        guard !isEnded else { return }
        let begun = await core.onContext { [self, response, fileSize] in begin(response, fileSize: fileSize) }
        guard let pump = begun else { return }
        guard pump else {
            // No body to pump: soup has all of it (unless a 404 replaced a missing file).
            if case .file = original.body { delivered = file != nil } else { delivered = true }
            return
        }

        switch response.body {
        case .file:
            guard let file else { return }
            var remaining = fileSize
            while remaining > 0, !Task.isCancelled {
                let chunk = file.read(upTo: min(core.options.fileChunkBytes, Int(remaining)))
                if chunk.isEmpty {
                    // The file shrank under us: the client must not take a short body for a whole one.
                    if !isEnded { await core.onContext { [self] in abortConnection() } }
                    return
                }
                remaining -= Int64(chunk.count)
                guard await write(chunk) else { return }
            }
            delivered = remaining == 0
        case .stream(let stream):
            var broken = false
            for await chunk in stream where !chunk.isEmpty {
                guard await write(chunk) else {
                    broken = true
                    break
                }
            }
            if !broken, !isEnded { delivered = await core.onContext { [self] in complete() } }
        case .empty, .bytes:
            break
        }
    }

    /// Context thread: status, headers and (for bytes) the body; true when a body pump
    /// follows, nil when the exchange had ended.
    private func begin(_ response: HTTPResponse, fileSize: Int64) -> Bool? {
        guard !ended else { return nil }
        core.writeHead(message, response)
        let headers = soup_server_message_get_response_headers(message)
        let body = soup_server_message_get_response_body(message)
        var pump = false
        switch response.body {
        case .empty:
            break
        case .bytes(let data):
            core.appendBody(message, data)
        case .file:
            soup_message_headers_set_content_length(headers, goffset(fileSize))
            soup_message_body_set_accumulate(body, 0)
            pump = !isHead && fileSize > 0
        case .stream:
            soup_message_headers_set_encoding(headers, SOUP_ENCODING_CHUNKED)
            soup_message_body_set_accumulate(body, 0)
            pump = !isHead
            if isHead { soup_message_body_complete(body) }
        }
        pumping = pump
        connection.sending()
        soup_server_message_unpause(message)
        return pump
    }

    /// Hands one chunk to soup and waits until it is written (back-pressure);
    /// false when the exchange ended (client gone, server stopped).
    private func write(_ chunk: Data) async -> Bool {
        guard !isEnded else { return false }
        return await withCheckedContinuation { continuation in
            core.context.invoke { [self] in
                guard !ended else { return continuation.resume(returning: false) }
                core.appendBody(message, chunk)
                pendingWrite = continuation
                connection.sending()
                soup_server_message_unpause(message)
            }
        }
    }

    /// Context thread: the stream ended; soup writes the last chunk and finishes. False when
    /// the exchange had ended.
    @discardableResult
    private func complete() -> Bool {
        guard !ended else { return false }
        soup_message_body_complete(soup_server_message_get_response_body(message))
        connection.sending()
        soup_server_message_unpause(message)
        return true
    }

    // MARK: Signals and the socket watch (context thread)

    private func resumePending(_ value: Bool) {
        let pending = pendingWrite
        pendingWrite = nil
        pending?.resume(returning: value)
    }

    /// While a handler runs or a stream waits for its next chunk, soup does not
    /// read the socket: watch it, so a client that hangs up is noticed at once
    /// (its task is cancelled) instead of at the next write. A client that
    /// half-closes its side after sending the request counts as gone too (HTTP
    /// clients do not do that; `nc -q` does).
    private func watchSocket() {
        guard let socket = soup_server_message_get_socket(message) else { return }
        let box = Unmanaged.passRetained(self).toOpaque()
        socketWatch = plumb_socket_watch_attach(
            socket, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), G_PRIORITY_DEFAULT,
            core.context.pointer,
            { socket, condition, userData in
                guard let socket, let userData else { return 0 }
                let exchange = Unmanaged<Exchange>.fromOpaque(userData).takeUnretainedValue()
                return exchange.socketReady(socket, condition) ? 1 : 0
            }, box, { userData in
                if let userData { Unmanaged<Exchange>.fromOpaque(userData).release() }
            })
    }

    /// True to keep watching.
    private func socketReady(_ socket: UnsafeMutablePointer<GSocket>, _ condition: GIOCondition) -> Bool {
        if condition.rawValue & (G_IO_HUP.rawValue | G_IO_ERR.rawValue) == 0 {
            var byte: UInt8 = 0
            let n = recv(g_socket_get_fd(socket), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if n > 0 {
                // The client sent more (a pipelined request): not a hang-up, and
                // soup will read it after this response. Stop watching.
                socketWatch.map { g_source_unref($0) }
                socketWatch = nil
                return false
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
        }
        socketWatch.map { g_source_unref($0) }
        socketWatch = nil
        abortConnection()
        return false
    }

    /// Drops the connection: the client is gone, or the body cannot be completed.
    private func abortConnection() {
        guard !ended else { return }
        end()
        connection.close()
    }

    private var isEnded: Bool { endedFlag.load(ordering: .acquiring) }

    /// Context thread: the message is done (written, failed, or dropped). Idempotent.
    private func end() {
        guard !ended else { return }
        ended = true
        endedFlag.store(true, ordering: .releasing)
        task?.cancel()
        task = nil
        resumePending(false)
        if let socketWatch {
            g_source_destroy(socketWatch)
            g_source_unref(socketWatch)
            self.socketWatch = nil
        }
        signals?.disconnectAll()
        signals = nil
        core.exchangeEnded(self)
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    /// Opens a regular file for reading; nil if it is missing, not a regular
    /// file, or a symlink (O_NOFOLLOW: a link cannot lead a download elsewhere).
    private static func open(_ path: String) -> (OpenFile, Int64)? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        return (OpenFile(fd), Int64(info.st_size))
    }
}

/// A file being sent, read chunk by chunk; closed by `close()` or when let go of.
/// `@unchecked Sendable`: one exchange reads it at a time.
private final class OpenFile: @unchecked Sendable {
    private var descriptor: Int32

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    /// Up to `count` bytes; empty at the end of the file or on an error.
    func read(upTo count: Int) -> Data {
        guard descriptor >= 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: count)
        while true {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
            if n < 0 && errno == EINTR { continue }
            return n > 0 ? Data(bytes[..<n]) : Data()
        }
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
