import GLib
import GStreamer
import GStreamerRTSP
import Plumb
import Synchronization

/// The preview over RTSP: `rtsp://ADDRESS:PORT/PATH`, one shared media serving any
/// number of consumers, fed by an `EncodedStream`.
///
/// The media is `appsrc ! h264parse ! rtph264pay`: it never touches the camera or its
/// encoder, so consumers joining or leaving cannot stop, restart or stall the capture
/// pipeline. The media's appsrc subscribes to the stream when gst-rtsp-server builds the
/// media (first consumer) and unsubscribes when it goes away (last consumer gone, server
/// stopped); each consumer's PLAY asks the encoder for a keyframe, so a newcomer decodes
/// a picture at once instead of waiting for the next scheduled one. A consumer that stops
/// reading is disconnected once data has waited untaken for `stallTimeout`.
public final class RTSPPreview: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Where to listen: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).
        public var address: String
        /// 0 picks a free port.
        public var port: Int
        /// The mount path, starting with "/".
        public var path: String
        /// Optional RTSP basic or digest authentication.
        public var credentials: PreviewCredentials?
        /// How long data may wait for a consumer that takes none of it (it stopped reading
        /// its connection) before it is disconnected; nil keeps it for ever.
        public var stallTimeout: Duration?

        public init(address: String = "127.0.0.1", port: Int = 8554, path: String = "/preview",
                    credentials: PreviewCredentials? = nil, stallTimeout: Duration? = .seconds(5)) {
            self.address = address
            self.port = port
            self.path = path
            self.credentials = credentials
            self.stallTimeout = stallTimeout
        }
    }

    /// The media each consumer is served from; `src` is fed by the stream.
    ///
    /// `config-interval=0`: the stream already carries SPS/PPS in front of every keyframe
    /// (the encoder branch's `h264parse config-interval=-1`), so a consumer joining on any
    /// keyframe has them. rtph264pay's own insertion (-1) puts SPS/PPS in front of every
    /// IDR *slice*, and x264's zerolatency tune cuts each frame into several slices: the
    /// copy before the second slice makes decoders start a new access unit there, so each
    /// keyframe reached ffmpeg as two frames with one timestamp — the first half
    /// concealed, "non monotonically increasing dts" at every keyframe.
    public static let launch = "( appsrc name=src is-live=true format=time do-timestamp=true "
        + "! h264parse ! rtph264pay name=pay0 pt=96 config-interval=0 )"

    public let configuration: Configuration
    public let stream: EncodedStream
    private let server: RTSPServer
    private let media = Mutex<(count: Int, live: [StreamSubscription])>((0, []))

    /// - Parameter onConsumerDropped: told of each consumer disconnected for not reading (its
    ///   address, what waited), on the server's thread: must only hand off.
    public init(stream: EncodedStream, configuration: Configuration = Configuration(),
                onConsumerDropped: (@Sendable (RTSPServer.DroppedClient) -> Void)? = nil) throws {
        guard configuration.path.hasPrefix("/"), configuration.path.count > 1,
              !configuration.path.contains(where: { $0 == " " || $0 == "?" || $0 == "#" }) else {
            throw CaptureError.invalidArgument(
                "RTSP path \"\(configuration.path)\" must start with \"/\" and hold no spaces, \"?\" or \"#\" (e.g. /preview)")
        }
        guard (0...65535).contains(configuration.port) else {
            throw CaptureError.invalidArgument("RTSP port \(configuration.port) is out of range: use 1 to 65535 (0 picks a free one)")
        }
        if let limit = configuration.stallTimeout, limit <= .zero {
            throw CaptureError.invalidArgument("RTSP stall timeout \(limit) must be more than 0 s")
        }
        self.configuration = configuration
        self.stream = stream
        server = try RTSPServer(address: configuration.address, port: configuration.port)
        server.mount(path: configuration.path, launch: Self.launch, mode: .play, shared: true,
                     credentials: configuration.credentials?.server) { [weak self] bin in
            self?.configure(bin)
        }
        server.onPlay = { [weak stream] in stream?.requestKeyframe() }
        server.stallLimit = configuration.stallTimeout
        server.onClientDropped = onConsumerDropped
    }

    /// Told of each consumer disconnected for not reading (its address, what waited), on
    /// the server's thread: must only hand off.
    public var onConsumerDropped: (@Sendable (RTSPServer.DroppedClient) -> Void)? {
        get { server.onClientDropped }
        set { server.onClientDropped = newValue }
    }

    deinit { stop() }

    /// A new shared media (first consumer): subscribe its appsrc; unsubscribe when it goes.
    private func configure(_ bin: Bin) -> (@Sendable () -> Void)? {
        guard let element = bin.element(named: "src"), let source = AppSrc(element) else { return nil }
        let number = media.withLock { m in
            m.count += 1
            return m.count
        }
        guard let subscription = try? stream.subscribe(source, name: "rtsp-media-\(number)") else { return nil }
        media.withLock { $0.live.append(subscription) }
        return { [weak self] in
            subscription.cancel()
            self?.media.withLock { $0.live.removeAll { $0 === subscription } }
        }
    }

    /// Starts listening on `context` (whose thread then serves every consumer's
    /// requests); returns the port bound.
    @discardableResult
    public func start(on context: MainContext) throws -> Int {
        try server.start(on: context)
    }

    /// Disconnects every consumer and stops listening; the stream keeps running. Idempotent.
    ///
    /// The media's subscription ends when gst-rtsp-server lets the media go, not here: a
    /// consumer caught in DESCRIBE waits for the media to preroll, which needs the frames
    /// the subscription brings — cutting them first would leave it hanging.
    public func stop() {
        server.stop()
    }

    /// The bound port (after `start`).
    public var port: Int { server.port }

    /// `rtsp://ADDRESS:PORT/PATH` (after `start`); 0.0.0.0 is shown as 127.0.0.1.
    public var url: String {
        let host = configuration.address == "0.0.0.0" ? "127.0.0.1" : configuration.address
        return "rtsp://\(host):\(port)\(configuration.path)"
    }

    /// RTSP clients connected now.
    public var clientCount: Int { server.clientCount }

    /// Shared media built so far (one per run of consumers: a media lives from its first
    /// consumer until its last one leaves).
    public var mediaCount: Int { media.withLock { $0.count } }

    /// The subscriptions of the media alive now (zero or one).
    public var activeSubscriptions: [StreamSubscription] { media.withLock { $0.live } }
}

extension PreviewCredentials {
    /// The RTSP server's form of them.
    var server: RTSPServer.Credentials {
        RTSPServer.Credentials(method: method == .basic ? .basic : .digest, user: user, password: password)
    }
}
