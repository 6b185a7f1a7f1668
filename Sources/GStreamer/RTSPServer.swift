internal import CGStreamer
internal import CGStreamerShim
internal import CGstRTSPServer
import Foundation

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
    private let lock = NSLock()
    private var source: UnsafeMutablePointer<GSource>?
    private var clients = Set<UnsafeMutableRawPointer>()
    private let events: Events

    /// Called (on the server's context thread) when a client sends PLAY — a new
    /// consumer that needs a keyframe now.
    public var onPlay: (@Sendable () -> Void)? {
        get { events.lock.withLock { events.onPlay } }
        set { events.lock.withLock { events.onPlay = newValue } }
    }

    /// Holds the callbacks the C signal handlers reach, so they never retain the server.
    private final class Events: @unchecked Sendable {  // behind `lock`
        let lock = NSLock()
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
        events.closed = { [weak self] c in self?.lock.withLock { _ = self?.clients.remove(c) } }
        Signal.connect(UnsafeMutableRawPointer(server), "client-connected") { _, client in
            guard let client else { return }
            events.lock.withLock { events.connected }?(client)
            Signal.connect(client, "closed") { client in
                events.lock.withLock { events.closed }?(client)
            }
            Signal.connect(client, "play-request") { _, _ in
                events.lock.withLock { events.onPlay }?()
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
        var error: UnsafeMutablePointer<GError>?
        guard let s = gst_rtsp_server_create_source(server, nil, &error) else {
            let address = takeString(gst_rtsp_server_get_address(server)) ?? "?"
            let service = takeString(gst_rtsp_server_get_service(server)) ?? "?"
            throw GStreamerError(taking: error, fallback: "cannot listen on \(address):\(service)")
        }
        g_source_attach(s, context.pointer)
        lock.withLock { source = s }
        return Int(gst_rtsp_server_get_bound_port(server))
    }

    /// The port actually bound (after `start`).
    public var port: Int { Int(gst_rtsp_server_get_bound_port(server)) }

    /// Connected RTSP clients.
    public var clientCount: Int { lock.withLock { clients.count } }

    /// Closes every client and stops listening. Idempotent.
    public func stop() {
        let s: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let s else { return }
        // A filter that removes every client: each is closed and dropped.
        _ = gst_rtsp_server_client_filter(server, { _, _, _ in GST_RTSP_FILTER_REMOVE }, nil)
        g_source_destroy(s)
        g_source_unref(s)
    }
}
