internal import CSoup
internal import CSoupShim
import FoundationEssentials
import Glibc
import Synchronization
import GLib

/// An HTTP/1.1 server (libsoup 3's SoupServer) whose sockets and callbacks live
/// on a `MainContext` the owner iterates (a `MainContextThread`, or the capture
/// session's executor), and whose routes are async Swift handlers.
///
/// Each request is resolved, authenticated and size-checked as soon as its
/// headers arrive; a matched request is paused while its handler runs as a Swift
/// task, and unpaused with the response on the server's context. Bodies are
/// bytes, files (streamed in chunks with back-pressure) or async streams (chunked;
/// server-sent events). A client that goes away cancels its handler's task.
///
/// Connections are kept alive between requests and closed as soon as the client
/// closes them, when they do not deliver a whole request within `idleTimeout`, or
/// when a response goes unread for `sendTimeout` (`ClientConnection`). A request
/// head over `maxRequestHeadBytes` is answered 431 (414 for a long request line).
public final class HTTPServer: Sendable {
    public struct Options: Sendable {
        /// When set, every route that requires authentication needs
        /// `Authorization: Bearer TOKEN` (401 otherwise).
        public var bearerToken: String?
        /// The `Server` response header; nil sends none.
        public var serverHeader: String? = "plumb"
        /// Larger declared request bodies get 413 before they are read.
        public var maxRequestBodyBytes = 1 << 20
        /// How much of a file is read per chunk when streaming a download.
        public var fileChunkBytes = 64 << 10
        /// How long a connection may take to deliver a whole request (head and body)
        /// once the server is ready for one: after it is accepted, or after the last
        /// response on a kept-alive connection. Idle, silent and half-sent connections
        /// are closed when it passes.
        public var idleTimeout: Duration = .seconds(30)
        /// How long a response may wait for the client to take any of it (a client
        /// that stopped reading) before its connection is dropped.
        public var sendTimeout: Duration = .seconds(60)
        /// The largest request head (request line and headers) accepted: a larger one
        /// gets 431 (414 when the request line alone is longer). At most 64 KiB,
        /// libsoup's own limit.
        public var maxRequestHeadBytes = 32 << 10 {
            didSet { precondition((1...(64 << 10)).contains(maxRequestHeadBytes), "maxRequestHeadBytes must be 1...65536") }
        }

        /// With a bearer token: the browser sessions whose cookie stands for it.
        public var sessions: SessionCookies?
        /// Origins (`http://HOST:PORT`) besides the server's own whose requests are served;
        /// a request with any other `Origin` header gets 403 (a page of another site).
        public var allowedOrigins: Set<String> = []

        public init(bearerToken: String? = nil, sessions: SessionCookies? = nil) {
            self.bearerToken = bearerToken
            self.sessions = sessions
        }
    }

    private let core: ServerCore

    public init(router: Router, context: MainContext, options: Options = Options()) {
        core = ServerCore(router: router, context: context, options: options)
    }

    /// Binds and starts serving. Port 0 picks a free port: the returned address
    /// has the real one. Throws a clear error when the address is taken.
    ///
    /// The context must be iterated (by its owner's thread) for this to return:
    /// the server is created on that thread so that soup's sources attach there.
    @discardableResult
    public func start(listen: ListenAddress) async throws(HTTPServerError) -> ListenAddress {
        let result = await core.onContext { [core] in core.start(listen: listen) }
        return try result.get()
    }

    /// Closes the listening socket and every connection, cancels running
    /// handlers and streams. Idempotent; the server can be started again.
    ///
    /// Returns once every handler task has finished: handlers are cancelled and
    /// should return promptly (a handler that ignores cancellation delays `stop`).
    /// After that nothing is left queued on the context, so the owner may stop
    /// iterating it.
    public func stop() async {
        let tasks = await core.onContext { [core] in core.stop() }
        for task in tasks { await task.value }
    }

    /// The bound address while running.
    public var address: ListenAddress? { core.state.withLock { $0.address } }

    /// Requests paused in a handler or streaming a body right now.
    public var activeExchanges: Int { core.state.withLock { $0.activeExchanges } }

    /// Client connections open right now (kept-alive and refused ones included).
    public var openConnections: Int { core.state.withLock { $0.openConnections } }

    deinit {
        // Still running (the owner did not stop it): tear down on the context,
        // where the soup server must be touched; the core lives until that runs.
        // A stopped server must not queue anything: on a context nobody iterates
        // any more, the queued source would keep the context and the core alive.
        if core.state.withLock({ $0.address != nil }) {
            core.context.invoke { [core] in _ = core.stop() }
        }
    }
}

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case addressInUse
        case permissionDenied
        case addressNotAvailable
        case alreadyRunning
        case other
    }

    public var address: ListenAddress
    public var reason: Reason
    /// GLib's own message.
    public var detail: String

    public var description: String {
        let what = "cannot listen on \(address)"
        switch reason {
        case .addressInUse:
            return "\(what): the port is already in use (another plumb serve or another program listens there); "
                + "stop it or choose another address with --listen ADDR:PORT or [http] listen"
        case .permissionDenied:
            return "\(what): permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); "
                + "choose a port from 1024 up with --listen ADDR:PORT or [http] listen"
        case .addressNotAvailable:
            return "\(what): no network interface of this machine has the address \(address.host); "
                + "use 127.0.0.1, 0.0.0.0 or one of this machine's addresses"
        case .alreadyRunning:
            return "\(what): this server is already running; stop it first"
        case .other:
            return "\(what): \(detail)"
        }
    }
}

/// Everything the soup callbacks need. All soup calls happen on `context`'s
/// thread; `state` holds the few facts other threads read.
///
/// `@unchecked Sendable`: `server`, `exchanges`, `connections`, `lingering` and
/// `headBuffer` are only touched on the context's thread (every entry point is a soup
/// callback, a watch on the context or an `onContext` block); the rest is immutable
/// or in the Mutex.
final class ServerCore: @unchecked Sendable {
    let router: Router
    let context: MainContext
    let options: Options
    let bearer: BearerToken?

    typealias Options = HTTPServer.Options

    struct State {
        var address: ListenAddress?
        var activeExchanges = 0
        var openConnections = 0
    }
    let state = Mutex(State())

    private var server: UnsafeMutablePointer<SoupServer>?
    private var exchanges: [ObjectIdentifier: Exchange] = [:]
    /// Every connection soup has, by socket (from accept to "disconnected").
    private var connections: [UnsafeMutablePointer<GSocket>: ClientConnection] = [:]
    /// Connections answered outside soup, finishing.
    private var lingering: [ObjectIdentifier: LingeringClose] = [:]
    /// Where a connection peeks at a request head (`maxRequestHeadBytes` + 1).
    let headBuffer: UnsafeMutableRawBufferPointer

    init(router: Router, context: MainContext, options: Options) {
        self.router = router
        self.context = context
        self.options = options
        bearer = options.bearerToken.map { BearerToken($0) }
        headBuffer = .allocate(byteCount: options.maxRequestHeadBytes + 1, alignment: 1)
    }

    deinit { headBuffer.deallocate() }

    /// Runs `work` on the context's thread and returns its result.
    func onContext<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            context.invoke { continuation.resume(returning: work()) }
        }
    }

    // MARK: Life cycle (context thread)

    func start(listen: ListenAddress) -> Result<ListenAddress, HTTPServerError> {
        guard server == nil else {
            return .failure(HTTPServerError(address: listen, reason: .alreadyRunning, detail: "already running"))
        }
        // Soup creates its listening and connection sources on the thread-default
        // context; we are on the thread iterating ours, but make it explicit.
        context.pushThreadDefault()
        defer { context.popThreadDefault() }

        let server = plumb_soup_server_new(options.serverHeader)!
        let retained = Unmanaged.passRetained(self).toOpaque()
        soup_server_add_early_handler(server, nil, { _, message, path, _, userData in
            guard let message, let path, let userData else { return }
            Unmanaged<ServerCore>.fromOpaque(userData).takeUnretainedValue().headersArrived(message, path: String(cString: path))
        }, retained, { userData in
            if let userData { Unmanaged<ServerCore>.fromOpaque(userData).release() }
        })
        plumb_server_connect_request_started(server, { _, message, userData in
            guard let message, let userData else { return }
            Unmanaged<ServerCore>.fromOpaque(userData).takeUnretainedValue().requestStarted(message)
        }, Unmanaged.passRetained(self).toOpaque(), { userData in
            if let userData { Unmanaged<ServerCore>.fromOpaque(userData).release() }
        })
        soup_server_add_handler(server, nil, { _, message, path, query, userData in
            guard let message, let path, let userData else { return }
            Unmanaged<ServerCore>.fromOpaque(userData).takeUnretainedValue()
                .requestArrived(message, path: String(cString: path), query: query)
        }, Unmanaged.passRetained(self).toOpaque(), { userData in
            if let userData { Unmanaged<ServerCore>.fromOpaque(userData).release() }
        })

        var error: UnsafeMutablePointer<GError>?
        let listening = listeningSocket(listen, &error)
        defer { if let listening { g_object_unref(listening) } }
        guard let listening, soup_server_listen_socket(server, listening, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            let code = error.map { Int($0.pointee.code) } ?? -1
            let detail = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            g_object_unref(server)
            let reason: HTTPServerError.Reason = switch code {
            case Int(G_IO_ERROR_ADDRESS_IN_USE.rawValue): .addressInUse
            case Int(G_IO_ERROR_PERMISSION_DENIED.rawValue): .permissionDenied
            case _ where detail.contains("Cannot assign requested address"): .addressNotAvailable
            default: .other
            }
            return .failure(HTTPServerError(address: listen, reason: reason, detail: detail))
        }
        self.server = server
        let bound = boundAddress(server) ?? listen
        state.withLock { $0.address = bound }
        return .success(bound)
    }

    /// A bound, listening socket, as soup_server_listen makes it (IPv6 sockets IPv6
    /// only, the address reusable) but with a real backlog: soup leaves GSocket's
    /// default of 10, and a burst of clients beyond it waits for SYN-ACK retransmits
    /// (seconds) before the server even sees them.
    private func listeningSocket(_ listen: ListenAddress, _ error: inout UnsafeMutablePointer<GError>?)
        -> UnsafeMutablePointer<GSocket>? {
        let address = g_inet_socket_address_new_from_string(listen.host, guint(listen.port))!
        defer { g_object_unref(address) }
        let family = g_socket_address_get_family(address)
        guard let socket = g_socket_new(family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else { return nil }
        if family == G_SOCKET_FAMILY_IPV6 { g_socket_set_option(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, nil) }
        g_socket_set_listen_backlog(socket, SOMAXCONN)
        guard g_socket_bind(socket, address, 1, &error) != 0, g_socket_listen(socket, &error) != 0 else {
            g_object_unref(socket)
            return nil
        }
        return socket
    }

    /// Returns the tasks of the exchanges it cancelled.
    @discardableResult
    func stop() -> [Task<Void, Never>] {
        guard let server else { return [] }
        self.server = nil
        let running = Array(exchanges.values)
        let tasks = running.compactMap(\.task)
        for exchange in running { exchange.cancel() }
        soup_server_disconnect(server)  // every connection: "disconnected" ends its ClientConnection
        for connection in Array(connections.values) { connection.forget() }  // none left; to be sure
        for close in Array(lingering.values) { close.finish() }
        g_object_unref(server)  // releases the handler and signal references to self
        state.withLock { $0.address = nil }
        return tasks
    }

    /// The first listener's local address (the real port when 0 was asked).
    private func boundAddress(_ server: UnsafeMutablePointer<SoupServer>) -> ListenAddress? {
        guard let listeners = soup_server_get_listeners(server) else { return nil }
        defer { g_slist_free(listeners) }
        guard let socket = listeners.pointee.data?.assumingMemoryBound(to: GSocket.self),
              let local = g_socket_get_local_address(socket, nil) else { return nil }
        defer { g_object_unref(local) }
        let inet = UnsafeMutableRawPointer(local).assumingMemoryBound(to: GInetSocketAddress.self)
        let port = g_inet_socket_address_get_port(inet)
        let host = g_inet_address_to_string(g_inet_socket_address_get_address(inet)).map { text in
            defer { g_free(text) }
            return String(cString: text)
        }
        return host.flatMap { ListenAddress(host: $0, port: port) }
    }

    // MARK: Connections (context thread)

    /// "request-started": a new connection's first message (at accept), or a kept-alive
    /// connection's next one (at its first bytes).
    private func requestStarted(_ message: OpaquePointer) {
        guard let socket = soup_server_message_get_socket(message) else { return }
        if let connection = connections[socket] {
            connection.adopt(message, first: false)
        } else {
            let connection = ClientConnection(socket: socket, core: self)
            connections[socket] = connection
            state.withLock { $0.openConnections = connections.count + lingering.count }
            connection.adopt(message, first: true)
        }
    }

    func connectionEnded(_ connection: ClientConnection) {
        connections[connection.socket] = nil
        state.withLock { $0.openConnections = connections.count + lingering.count }
    }

    private func connection(for message: OpaquePointer) -> ClientConnection? {
        soup_server_message_get_socket(message).flatMap { connections[$0] }
    }

    /// Sends `answer` on a connection taken from soup, then closes it gracefully.
    func linger(socket: UnsafeMutablePointer<GSocket>, stream: UnsafeMutablePointer<GIOStream>, answer: Data) {
        let close = LingeringClose(socket: socket, stream: stream, answer: answer, context: context,
                                   timeout: .seconds(5)) { [weak self] close in
            guard let self else { return }
            lingering[ObjectIdentifier(close)] = nil
            state.withLock { $0.openConnections = self.connections.count + self.lingering.count }
        }
        lingering[ObjectIdentifier(close)] = close
        state.withLock { $0.openConnections = connections.count + lingering.count }
    }

    /// Now, as an HTTP Date header value.
    static func httpDate() -> String {
        let now = g_date_time_new_now_utc()
        defer { g_date_time_unref(now) }
        guard let text = soup_date_time_to_string(now, SOUP_DATE_HTTP) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    // MARK: Requests (context thread)

    /// The early handler: headers are in, the body is not. Everything that can
    /// be refused without the handler is refused here, before a body is read.
    private func headersArrived(_ message: OpaquePointer, path: String) {
        let method = String(cString: soup_server_message_get_method(message))
        let requestHeaders = soup_server_message_get_request_headers(message)
        let resolution = router.resolve(method: method, path: path)

        if let refusal = CrossOrigin.refusal(origin: headerValue(requestHeaders, "Origin"),
                                             host: headerValue(requestHeaders, "Host"), allowed: options.allowedOrigins) {
            return reject(message, refusal)
        }
        if let bearer, resolution.requiresAuthentication {
            let verdict = bearer.check(authorization: headerValue(requestHeaders, "Authorization"))
            let session = verdict == .missing
                && options.sessions?.accepts(cookieHeader: headerValue(requestHeaders, "Cookie")) == true
            if verdict != .accepted && !session { return reject(message, bearer.challenge(verdict)) }
        }
        switch resolution {
        case .notFound:
            return reject(message, .error(404, "no such endpoint: \(method) \(path)"))
        case .methodNotAllowed(let allowed):
            return reject(message, .error(405, "\(path) does not accept \(method); use \(allowed.joined(separator: " or "))",
                                          headers: ["Allow": allowed.joined(separator: ", ")]))
        case .matched:
            break
        }
        let encoding = soup_message_headers_get_encoding(requestHeaders)
        let length = soup_message_headers_get_content_length(requestHeaders)
        if encoding == SOUP_ENCODING_CHUNKED || length > Int64(options.maxRequestBodyBytes) {
            reject(message, .error(413, "the request body is too large: at most \(options.maxRequestBodyBytes) bytes, with a Content-Length"))
        }
    }

    /// The handler: the whole request is in and passed the early checks.
    private func requestArrived(_ message: OpaquePointer, path: String, query: OpaquePointer?) {
        let method = String(cString: soup_server_message_get_method(message))
        // libsoup hands query values over as C strings, cut at a NUL (`device=test%00x` would
        // read as `test`), and a decoded path parameter would carry one on to C: refused whole.
        let rawQuery = g_uri_get_query(soup_server_message_get_uri(message)).map { String(cString: $0) } ?? ""
        if Self.holdsNUL(path) || Self.holdsNUL(rawQuery) {
            return reject(message, .error(400, "the request's path or query holds a NUL byte (%00); remove it"))
        }
        guard case let .matched(route, parameters) = router.resolve(method: method, path: path) else {
            return reject(message, .error(404, "no such endpoint: \(method) \(path)"))
        }
        let request = HTTPRequest(method: method, path: path, query: decodeQuery(query),
                                  headers: requestHeaders(message), body: requestBody(message),
                                  parameters: parameters,
                                  remoteAddress: soup_server_message_get_remote_host(message).map { String(cString: $0) })
        guard let connection = connection(for: message) else {
            return reject(message, .error(500, "internal error: a request on a connection the server does not know"))
        }
        connection.handOver()
        let exchange = Exchange(message: message, core: self, connection: connection, isHead: method == "HEAD")
        exchanges[ObjectIdentifier(exchange)] = exchange
        state.withLock { $0.activeExchanges = exchanges.count }
        soup_server_message_pause(message)
        exchange.start {
            do {
                return try await route.handler(request)
            } catch let error as any HTTPResponseConvertible {
                return error.response
            } catch {
                return .error(500, "internal error: \(error)")
            }
        }
    }

    /// Called by an exchange once its message is done, one way or another.
    func exchangeEnded(_ exchange: Exchange) {
        exchanges[ObjectIdentifier(exchange)] = nil
        state.withLock { $0.activeExchanges = exchanges.count }
    }

    /// Answers at once (no handler ran): soup writes it when this callback returns.
    private func reject(_ message: OpaquePointer, _ response: HTTPResponse) {
        // Whatever body the client sends is read and dropped, not kept in memory.
        soup_message_body_set_accumulate(soup_server_message_get_request_body(message), 0)
        writeHead(message, response)
        if case .bytes(let data) = response.body { appendBody(message, data) }
    }

    // MARK: Soup helpers (context thread)

    func writeHead(_ message: OpaquePointer, _ response: HTTPResponse) {
        soup_server_message_set_status(message, guint(response.status), nil)
        let headers = soup_server_message_get_response_headers(message)
        // libsoup keeps an HTTP/1.0 connection only when the answer says keep-alive, which it
        // never adds itself. Said when the client asked and the body has a length (a stream
        // has none in 1.0: it ends with the connection).
        if soup_server_message_get_http_version(message) == SOUP_HTTP_1_0,
           soup_message_headers_header_contains(soup_server_message_get_request_headers(message), "Connection", "Keep-Alive") != 0 {
            if case .stream = response.body {} else { soup_message_headers_replace(headers, "Connection", "keep-alive") }
        }
        for (name, value) in response.headers {
            soup_message_headers_replace(headers, name, value)
        }
    }

    func appendBody(_ message: OpaquePointer, _ data: Data) {
        guard !data.isEmpty else { return }  // an empty chunk would end the body
        let body = soup_server_message_get_response_body(message)
        data.withUnsafeBytes { bytes in
            soup_message_body_append(body, SOUP_MEMORY_COPY, bytes.baseAddress, gsize(bytes.count))
        }
    }

    private func headerValue(_ headers: OpaquePointer?, _ name: String) -> String? {
        soup_message_headers_get_one(headers, name).map { String(cString: $0) }
    }

    private func requestHeaders(_ message: OpaquePointer) -> HTTPHeaders {
        var result = HTTPHeaders()
        var iter = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iter, soup_server_message_get_request_headers(message))
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iter, &name, &value) != 0 {
            if let name, let value { result.add(String(cString: name), String(cString: value)) }
        }
        return result
    }

    private func requestBody(_ message: OpaquePointer) -> Data {
        guard let bytes = soup_message_body_flatten(soup_server_message_get_request_body(message)) else { return Data() }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
        return Data(bytes: data, count: Int(size))
    }

    /// soup's decoded form fields (a GHashTable of strings).
    /// Whether percent-encoded text decodes to a NUL byte.
    static func holdsNUL(_ encoded: String) -> Bool {
        encoded.lowercased().contains("%00") || encoded.utf8.contains(0)
    }

    private func decodeQuery(_ table: OpaquePointer?) -> [String: String] {
        guard let table else { return [:] }
        var result: [String: String] = [:]
        var iter = GHashTableIter()
        g_hash_table_iter_init(&iter, table)
        var key: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iter, &key, &value) != 0 {
            guard let key, let value else { continue }
            result[String(cString: key.assumingMemoryBound(to: CChar.self))] =
                String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return result
    }
}

extension Router.Resolution {
    /// 404 and 405 need the token too, so the API's shape is not revealed to strangers.
    var requiresAuthentication: Bool {
        if case let .matched(route, _) = self { return route.requiresAuthentication }
        return true
    }
}
