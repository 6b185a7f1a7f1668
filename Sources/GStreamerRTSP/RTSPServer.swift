internal import CGStreamer
import GStreamer
internal import CGStreamerShim
internal import CGstRTSPServer
import Dispatch
import FoundationEssentials
import Glibc
import GLib

/// gst-rtsp-server: serves mounts whose media pipelines are built from launch
/// descriptions. The server's sockets and clients are dispatched on the
/// MainContext given at start, by whoever iterates it.
public final class RTSPServer: @unchecked Sendable {  // mutable state behind `lock`
    public enum AuthMethod: String, Sendable { case basic, digest }

    public struct Credentials: Sendable, Equatable {
        public var method: AuthMethod
        public var user: String
        public var password: String
        public init(method: AuthMethod, user: String, password: String) {
            self.method = method
            self.user = user
            self.password = password
        }
    }

    /// Internal, not private: RTSPServer+Media.swift mounts factories of its own.
    let server: UnsafeMutablePointer<GstRTSPServer>
    /// Internal, not private, like `source` and `clients`: RTSPServer+Stalls.swift keeps
    /// its state behind it too.
    let lock = Condition()
    /// Set while listening.
    var source: UnsafeMutablePointer<GSource>?
    /// The listening socket, closed by `stop` itself: the source's last reference may be
    /// dropped a moment later on the context's thread, and the port must be free at once.
    var listener: UnsafeMutablePointer<GSocket>?
    /// Where the server's sources are dispatched (after `start`): `stop` closes the
    /// clients there, never beside a watch reading their connections.
    var context: MainContext?
    var boundPort = 0
    /// The clients connected now (from "client-connected" to "closed").
    var clients = Set<UnsafeMutableRawPointer>()
    private let events: Events
    /// For RTSPServer+Stalls.swift, behind `lock`: each connected client's send queue
    /// samples, the timer of the next check, the limit and who hears of a drop.
    var sendQueues: [UnsafeMutableRawPointer: SendQueueWatch] = [:]
    var stallTimer: ContextTimer?
    var stallSettings: (limit: Duration?, onDrop: (@Sendable (DroppedClient) -> Void)?) = (nil, nil)

    /// Called (on the server's context thread) when a client sends PLAY — a new
    /// consumer that needs a keyframe now.
    public var onPlay: (@Sendable () -> Void)? {
        get { events.lock.withLock { events.onPlay } }
        set { events.lock.withLock { events.onPlay = newValue } }
    }

    /// How long a session lives without a sign of its consumer — an RTSP request, RTCP
    /// from a UDP consumer, RTP taken over TCP — before it is removed with its media
    /// (gst_rtsp_session_set_timeout on each new session); gst-rtsp-server's 60 s by default.
    /// Whole seconds; applies to sessions made from then on.
    public var sessionTimeout: Duration? {
        get { events.lock.withLock { events.sessionTimeout } }
        set { events.lock.withLock { events.sessionTimeout = newValue } }
    }

    /// Holds the callbacks the C signal handlers reach, so they never retain the server.
    private final class Events: @unchecked Sendable {  // behind `lock`
        let lock = Condition()
        var sessionTimeout: Duration?
        var onPlay: (@Sendable () -> Void)?
        var connected: (@Sendable (UnsafeMutableRawPointer) -> Void)?
        var closed: (@Sendable (UnsafeMutableRawPointer) -> Void)?
    }

    /// `address` is where to listen (127.0.0.1 by default), `port` 0 picks a free one.
    public init(address: String = "127.0.0.1", port: Int = 8554) throws(GStreamerError) {
        try Gst.initialize()
        server = gst_rtsp_server_new()
        gst_rtsp_server_set_address(server, address)
        gst_rtsp_server_set_service(server, String(port))
        let events = Events()
        self.events = events
        events.connected = { [weak self] c in self?.lock.withLock { _ = self?.clients.insert(c) } }
        events.closed = { [weak self] c in
            self?.lock.withLock {
                _ = self?.clients.remove(c)
                self?.sendQueues[c] = nil
            }
        }
        Signal.connect(UnsafeMutableRawPointer(server), "client-connected") { _, client in
            guard let client else { return }
            // Close the connection as soon as its last session has timed out (the default,
            // -1, keeps it open for ever): a consumer over UDP that vanished without TEARDOWN
            // then leaves with its session. After a TEARDOWN the server closes it anyway.
            var none = GValue()
            g_value_init(&none, plumb_type_int())
            g_value_set_int(&none, 0)
            g_object_set_property(cast(client), "post-session-timeout", &none)
            g_value_unset(&none)
            events.lock.withLock { events.connected }?(client)
            Signal.connect(client, "closed") { client in
                events.lock.withLock { events.closed }?(client)
            }
            Signal.connect(client, "play-request") { _, _ in
                events.lock.withLock { events.onPlay }?()
            }
            Signal.connect(client, "new-session") { _, session in
                guard let session, let timeout = events.lock.withLock({ events.sessionTimeout }) else { return }
                gst_rtsp_session_set_timeout(session.assumingMemoryBound(to: GstRTSPSession.self),
                                             guint(clamping: max(1, timeout.components.seconds)))
            }
        }
    }

    deinit {
        stop()
        g_object_unref(UnsafeMutableRawPointer(server))  // a plain GObject, not a GstObject
    }

    /// Mounts a media factory at `path` ("/preview"). `launch` is a gst-launch
    /// description in parentheses whose payloaders are named pay0, pay1 ...
    /// A shared mount builds one media for every client. `onMediaConfigure` gets
    /// each new media's top-level bin (to find an appsrc in it), on a server thread.
    public func mount(path: String, launch: String, shared: Bool = true, credentials: Credentials? = nil,
                      onMediaConfigure: (@Sendable (Bin) -> Void)? = nil) {
        mount(path: path, launch: launch, mode: .play, shared: shared, credentials: credentials) { bin in
            onMediaConfigure?(bin)
            return nil
        }
    }

    /// Only `credentials` may use the factory; the server asks for them with `method`.
    func protect(_ factory: UnsafeMutablePointer<GstRTSPMediaFactory>, _ credentials: Credentials) {
        let role = "plumb-viewer"
        let auth = gst_rtsp_auth_new()!
        let token = gst_rtsp_token_new_empty()!
        var value = GValue()
        g_value_init(&value, plumb_type_string())
        g_value_set_string(&value, role)
        gst_structure_set_value(gst_rtsp_token_writable_structure(token), "media.factory.role", &value)
        g_value_unset(&value)
        switch credentials.method {
        case .basic:
            let basic = gst_rtsp_auth_make_basic(credentials.user, credentials.password)
            gst_rtsp_auth_add_basic(auth, basic, token)
            g_free(basic)
            gst_rtsp_auth_set_supported_methods(auth, GST_RTSP_AUTH_BASIC)
        case .digest:
            gst_rtsp_auth_add_digest(auth, credentials.user, credentials.password, token)
            gst_rtsp_auth_set_supported_methods(auth, GST_RTSP_AUTH_DIGEST)
        }
        gst_mini_object_unref(cast(token))
        gst_rtsp_server_set_auth(server, auth)
        g_object_unref(UnsafeMutableRawPointer(auth))
        let permissions = gst_rtsp_permissions_new()!
        gst_rtsp_permissions_add_role_empty(permissions, role)
        gst_rtsp_permissions_add_permission_for_role(permissions, role, "media.factory.access", 1)
        gst_rtsp_permissions_add_permission_for_role(permissions, role, "media.factory.construct", 1)
        gst_rtsp_media_factory_set_permissions(factory, permissions)
        gst_mini_object_unref(cast(permissions))
    }

    /// Starts listening; returns the bound port. The server's source is attached to `context`.
    @discardableResult
    public func start(on context: MainContext) throws(GStreamerError) -> Int {
        // gst_rtsp_server_create_source, in two steps so that the socket stays at hand.
        var error: UnsafeMutablePointer<GError>?
        guard let socket = gst_rtsp_server_create_socket(server, nil, &error) else {
            let address = takeString(gst_rtsp_server_get_address(server)) ?? "?"
            let service = takeString(gst_rtsp_server_get_service(server)) ?? "?"
            throw GStreamerError(taking: error, fallback: "cannot listen on \(address):\(service)")
        }
        let s = g_socket_create_source(socket, GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_PRI.rawValue), nil)!
        // A GSocketSourceFunc, called through GSourceFunc's type as GLib does.
        let accept: @convention(c) (UnsafeMutablePointer<GSocket>?, GIOCondition, gpointer?) -> gboolean = { socket, condition, server in
            gst_rtsp_server_io_func(socket, condition, server?.assumingMemoryBound(to: GstRTSPServer.self))
        }
        g_source_set_callback(s, unsafeBitCast(accept, to: GSourceFunc.self), g_object_ref(server), g_object_unref)
        g_source_attach(s, context.pointer)
        // The server's own bound-port getter reads the socket create_source would have kept.
        var bound = 0
        if let address = g_socket_get_local_address(socket, nil) {
            bound = Int(g_inet_socket_address_get_port(UnsafeMutableRawPointer(address).assumingMemoryBound(to: GInetSocketAddress.self)))
            g_object_unref(address)
        }
        lock.withLock {
            source = s
            listener = socket
            self.context = context
            boundPort = bound
        }
        scheduleStallCheck(on: context)
        return bound
    }

    /// The port actually bound (after `start`).
    public var port: Int { lock.withLock { boundPort } }

    /// Connected RTSP clients.
    public var clientCount: Int { lock.withLock { clients.count } }

    /// Closes every client and stops listening. Idempotent.
    public func stop() {
        let (s, socket): (UnsafeMutablePointer<GSource>?, UnsafeMutablePointer<GSocket>?) = lock.withLock {
            defer { source = nil; listener = nil }
            return (source, listener)
        }
        guard let s else { return }
        lock.withLock {
            stallTimer?.cancel()
            stallTimer = nil
        }
        // On the context's thread: closed from another one, a client's connection lost its
        // streams while its watch was reading them there (GIO's criticals, by the ten
        // thousand, and a consumer never told). Here when nobody iterates the context (GLib
        // runs the call at once then), or when it is not iterated within 5 s.
        if let context = lock.withLock({ context }) {
            let done = DispatchSemaphore(value: 0)
            context.invoke { [self] in
                closeEveryClient()
                done.signal()
            }
            if done.wait(timeout: .now() + 5) == .timedOut { closeEveryClient() }
        } else {
            closeEveryClient()
        }
        g_source_destroy(s)
        g_source_unref(s)
        if let socket {
            _ = g_socket_close(socket, nil)
            g_object_unref(socket)
        }
    }

    /// A filter that removes every client: each is closed and dropped. The socket is shut
    /// down first: closing the connection only drops its reference to the GSocket, and
    /// while anything else still holds one (a watch, the media's TCP sender) the
    /// descriptor stays open and the consumer sees no end.
    private func closeEveryClient() {
        _ = gst_rtsp_server_client_filter(server, { _, client, _ in
            if let client, let connection = gst_rtsp_client_get_connection(client),
               let socket = gst_rtsp_connection_get_read_socket(connection), g_socket_is_closed(socket) == 0 {
                _ = g_socket_shutdown(socket, 1, 1, nil)
            }
            return GST_RTSP_FILTER_REMOVE
        }, nil)
    }
}
