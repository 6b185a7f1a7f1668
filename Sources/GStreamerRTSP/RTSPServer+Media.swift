internal import CGStreamer
import GStreamer
internal import CGStreamerShim
internal import CGstRTSPServer
import Synchronization

extension RTSPServer {
    /// Which way media flows through a mount (GstRTSPTransportMode).
    public enum TransportMode: Sendable {
        /// Clients DESCRIBE and PLAY: the launch ends in payloaders named pay0, pay1 ...
        case play
        /// Clients ANNOUNCE and RECORD (rtspclientsink, ffmpeg -f rtsp): the launch
        /// starts with depayloaders named depay0, depay1 ... that receive the client's RTP.
        case record
    }

    /// Mounts a media factory at `path` and follows the life of each media it builds.
    ///
    /// `onMedia` gets each new media's top-level bin (the launch description's
    /// elements) when the media is configured, on a server thread, and may return
    /// what to do when that media goes away — unprepared, or finalized without ever
    /// being prepared. That closure runs exactly once, on whichever thread lets the
    /// media go. Both must only hand off.
    ///
    /// A shared `.play` mount builds one media for every client; a `.record` mount
    /// should not be shared (each publisher brings its own stream).
    public func mount(path: String, launch: String, mode: TransportMode, shared: Bool,
                      credentials: Credentials? = nil,
                      onMedia: @escaping @Sendable (Bin) -> (@Sendable () -> Void)?) {
        let factory = gst_rtsp_media_factory_new()!
        gst_rtsp_media_factory_set_launch(factory, launch)
        gst_rtsp_media_factory_set_shared(factory, shared ? 1 : 0)
        // Keep a shared media playing between clients: a consumer leaving never stalls the source.
        gst_rtsp_media_factory_set_suspend_mode(factory, GST_RTSP_SUSPEND_MODE_NONE)
        switch mode {
        case .play: gst_rtsp_media_factory_set_transport_mode(factory, GST_RTSP_TRANSPORT_MODE_PLAY)
        case .record: gst_rtsp_media_factory_set_transport_mode(factory, GST_RTSP_TRANSPORT_MODE_RECORD)
        }
        Signal.connect(UnsafeMutableRawPointer(factory), "media-configure") { _, media in
            guard let media,
                  let element = gst_rtsp_media_get_element(media.assumingMemoryBound(to: GstRTSPMedia.self)),
                  let bin = Element.wrap(UnsafeMutableRawPointer(element), retain: false) as? Bin,
                  let gone = onMedia(bin)
            else { return }
            let once = MediaGone(gone)
            // The usual end: the media is unprepared (its last client left, the server stopped).
            // The handler holds `once`, never the media, so it keeps nothing alive.
            Signal.connect(media, "unprepared") { _ in once.run() }
            // A media dropped before it was ever prepared is only finalized: a weak
            // reference sees that too. Its notify releases the retain taken here.
            g_object_weak_ref(cast(media), { data, _ in
                guard let data else { return }
                let once = Unmanaged<MediaGone>.fromOpaque(data).takeRetainedValue()
                once.run()
            }, Unmanaged.passRetained(once).toOpaque())
        }
        if let credentials { protect(factory, credentials) }
        let mounts = gst_rtsp_server_get_mount_points(server)!
        gst_rtsp_mount_points_add_factory(mounts, path, factory)  // takes the factory
        g_object_unref(UnsafeMutableRawPointer(mounts))
    }
}

/// Runs a media's "gone" closure once, whichever of its two triggers comes first.
private final class MediaGone: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>
    init(_ action: @escaping @Sendable () -> Void) { self.action = Mutex(action) }
    func run() {
        let a = action.withLock { a in
            defer { a = nil }
            return a
        }
        a?()
    }
}
