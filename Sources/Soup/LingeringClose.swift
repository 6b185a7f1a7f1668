internal import CSoup
internal import CSoupShim
import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
import GLib
#endif

/// The end of a connection the server answered itself, outside soup (431, 414):
/// the answer is sent, the server's side shut down, and whatever the client still
/// sends is read and dropped until it closes or `timeout` passes. Closing a socket
/// with unread data sends a reset, which can destroy the answer before the client
/// has read it: a client still sending its oversized head would see only the reset.
///
/// `@unchecked Sendable` (for the timer's closure): used on the server context's thread only.
final class LingeringClose: @unchecked Sendable {
    private let socket: UnsafeMutablePointer<GSocket>  // one reference held until `finish`
    private var stream: UnsafeMutablePointer<GIOStream>?  // the stolen connection, owned
    private var watch: UnsafeMutablePointer<GSource>?
    private var timer: ContextTimer?
    private var drained = 0
    private let done: (LingeringClose) -> Void

    /// Drops at most this much of what the client sends before closing anyway.
    private static let maxDrainedBytes = 1 << 20

    /// Takes over `stream` (a connection stolen from soup) on `socket`, sends `answer`.
    init(socket: UnsafeMutablePointer<GSocket>, stream: UnsafeMutablePointer<GIOStream>, answer: Data,
         context: MainContext, timeout: Duration, done: @escaping (LingeringClose) -> Void) {
        self.socket = socket
        self.stream = stream
        self.done = done
        g_object_ref(UnsafeMutableRawPointer(socket))
        let fd = g_socket_get_fd(socket)
        // A few hundred bytes into an idle send buffer: one non-blocking send takes them.
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        let box = Unmanaged.passRetained(self).toOpaque()
        watch = plumb_socket_watch_attach(
            socket, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), G_PRIORITY_DEFAULT,
            context.pointer, { _, _, userData in
                guard let userData else { return 0 }
                return Unmanaged<LingeringClose>.fromOpaque(userData).takeUnretainedValue().drain() ? 1 : 0
            }, box, { userData in
                if let userData { Unmanaged<LingeringClose>.fromOpaque(userData).release() }
            })
        timer = context.schedule(after: timeout) { [weak self] in self?.finish() }
    }

    /// True to keep watching.
    private func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let fd = g_socket_get_fd(socket)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
            drained += max(n, 0)
            if n <= 0 || drained > Self.maxDrainedBytes {
                finish()
                return false
            }
        }
    }

    /// Closes the connection. Idempotent.
    func finish() {
        guard let stream else { return }
        self.stream = nil
        timer?.cancel()
        timer = nil
        if let watch {
            g_source_destroy(watch)
            g_source_unref(watch)
            self.watch = nil
        }
        g_io_stream_close(stream, nil, nil)
        g_object_unref(stream)
        g_object_unref(UnsafeMutableRawPointer(socket))
        done(self)
    }
}
