internal import CGStreamer
import GStreamer
import GLib
internal import CGStreamerShim
internal import CGstRTSPServer
import FoundationEssentials
import Glibc

/// Dropping consumers that stopped reading.
///
/// gst-rtsp-server 1.22 keeps a client whose TCP connection is no longer read: the kernel
/// takes its RTP until its send buffer (autotuned up to `tcp_wmem`'s 4 MB) is full, then
/// each stream transport queues in its own backlog, and after 10 s of backlog it stops
/// sending to that transport ("Dropping slow transport") — but the client stays
/// connected and counted, for ever. So the server looks at every client's connection
/// now and then (`SendQueueWatch`) and closes one whose data has waited untaken for
/// longer than `stallLimit`: what it holds for such a consumer is bounded by what the
/// stream sends in that time.
extension RTSPServer {
    /// A consumer dropped for not reading.
    public struct DroppedClient: Sendable, Equatable, CustomStringConvertible {
        /// ADDRESS:PORT (IPv6 in brackets) of the consumer's connection.
        public var address: String
        /// How long data had waited for it.
        public var waited: Duration
        /// Bytes waiting for it when it was dropped.
        public var queuedBytes: Int
        /// Bytes it took meanwhile.
        public var takenBytes: UInt64

        public var description: String {
            // Tenths of a second, rounded: "2.5".
            let tenths = Int((Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18) * 10
                             + 0.5)
            let seconds = "\(tenths / 10).\(tenths % 10)"
            let taken = takenBytes == 0 ? "it took nothing" : "it took \(takenBytes) bytes meanwhile"
            return "dropped RTSP consumer \(address), which stopped reading: \(queuedBytes) bytes waited "
                + "\(seconds) s for it and \(taken)"
        }
    }

    /// How long data may wait for a consumer that takes none of it before it is
    /// disconnected; nil keeps every consumer (gst-rtsp-server's own behaviour).
    public var stallLimit: Duration? {
        get { lock.withLock { stallSettings.limit } }
        set {
            lock.withLock {
                stallSettings.limit = newValue
                sendQueues.removeAll()
            }
        }
    }

    /// Told of each consumer dropped for not reading, on the server's context thread:
    /// must only hand off.
    public var onClientDropped: (@Sendable (DroppedClient) -> Void)? {
        get { lock.withLock { stallSettings.onDrop } }
        set { lock.withLock { stallSettings.onDrop = newValue } }
    }

    /// Checks every client a moment from now on `context`, then again, until `stop`; and
    /// removes the sessions that timed out.
    ///
    /// gst-rtsp-server never expires a session by itself: the application must call
    /// gst_rtsp_session_pool_cleanup. Without it a consumer over UDP that vanished without
    /// TEARDOWN (its RTCP receiver reports, which keep its session alive, stopped) keeps
    /// its session, and with it its client, for ever; with it, the session goes after its
    /// timeout and the client soon after.
    func scheduleStallCheck(on context: MainContext) {
        let limit = lock.withLock { stallSettings.limit } ?? .seconds(10)
        // Ten samples per limit: a stall is seen within a tenth of the limit of its end.
        let interval = min(max(limit / 10, .milliseconds(100)), .seconds(1))
        let timer = context.schedule(after: interval) { [weak self] in
            guard let self else { return }
            self.checkStalls()
            let pool = gst_rtsp_server_get_session_pool(self.server)
            _ = gst_rtsp_session_pool_cleanup(pool)
            g_object_unref(UnsafeMutableRawPointer(pool))
            self.scheduleStallCheck(on: context)
        }
        // Stopped meanwhile (this ran on the context while `stop` ran elsewhere): no more.
        let serving = lock.withLock { () -> Bool in
            guard source != nil else { return false }
            stallTimer?.cancel()
            stallTimer = timer
            return true
        }
        if !serving { timer.cancel() }
    }

    /// Samples each client's connection; closes the stalled ones (the filter's REMOVE
    /// is gst_rtsp_client_close). On the server's context thread.
    private func checkStalls() {
        guard lock.withLock({ stallSettings.limit != nil }) else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let kept = gst_rtsp_server_client_filter(server, { _, client, me in
            guard let client, let me else { return GST_RTSP_FILTER_KEEP }
            let server = Unmanaged<RTSPServer>.fromOpaque(me).takeUnretainedValue()
            return server.hasStalled(client) ? GST_RTSP_FILTER_REMOVE : GST_RTSP_FILTER_KEEP
        }, me)
        g_list_free(kept)  // empty: the filter never answers REF
    }

    /// One sample of `client`'s connection; true when it is to go (reported, and its
    /// socket set to reset on close, so the kernel frees what waits at once instead of
    /// retrying it to a peer that reads nothing).
    private func hasStalled(_ client: UnsafeMutablePointer<GstRTSPClient>) -> Bool {
        guard let connection = gst_rtsp_client_get_connection(client),
              let socket = gst_rtsp_connection_get_write_socket(connection), g_socket_is_closed(socket) == 0
        else { return false }
        let fd = g_socket_get_fd(socket)
        var acked: guint64 = 0, queued: guint32 = 0
        guard plumb_tcp_send_queue(fd, &acked, &queued) == 0 else { return false }
        let key = UnsafeMutableRawPointer(client)
        let now = ContinuousClock.now
        let (stall, onDrop) = lock.withLock { () -> (SendQueueWatch.Stall?, (@Sendable (DroppedClient) -> Void)?) in
            // A client closed meanwhile must not come back as a stale entry.
            guard let limit = stallSettings.limit, clients.contains(key) else { return (nil, nil) }
            var watch = sendQueues[key] ?? SendQueueWatch(limit: limit)
            let stall = watch.sample(acked: UInt64(acked), queued: Int(queued), at: now)
            sendQueues[key] = watch
            return (stall, stallSettings.onDrop)
        }
        guard let stall else { return false }
        var reset = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        onDrop?(DroppedClient(address: Self.peerAddress(fd) ?? "an unknown address", waited: stall.waited,
                              queuedBytes: stall.queued, takenBytes: stall.taken))
        return true
    }

    /// ADDRESS:PORT of the socket's peer (getpeername), IPv6 in brackets.
    private static func peerAddress(_ fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        return withUnsafePointer(to: &storage) { (p: UnsafePointer<sockaddr_storage>) -> String? in
            switch Int32(p.pointee.ss_family) {
            case AF_INET:
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                    var address = a.pointee.sin_addr
                    return text(AF_INET, &address).map { "\($0):\(UInt16(bigEndian: a.pointee.sin_port))" }
                }
            case AF_INET6:
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    var address = a.pointee.sin6_addr
                    return text(AF_INET6, &address).map { "[\($0)]:\(UInt16(bigEndian: a.pointee.sin6_port))" }
                }
            default:
                return nil
            }
        }
    }

    /// inet_ntop.
    private static func text(_ family: Int32, _ address: UnsafeRawPointer) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return buffer.withUnsafeMutableBufferPointer { b in
            inet_ntop(family, address, b.baseAddress, socklen_t(b.count)).map { String(cString: $0) }
        }
    }
}
