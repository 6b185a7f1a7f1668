import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection read line by line on the caller's thread, where every wait (connecting,
/// reading, the pause between attempts) also ends when its `Wakeup` is signalled: a
/// client's thread can be stopped at any moment without closing a descriptor under it.
final class LineSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What a wait ended with.
    enum Event {
        case line([UInt8])
        case closed
        case woken
    }

    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Bytes of a line longer than `maximumLine`, skipped up to its newline.
    private var discarding = false
    let maximumLine: Int

    private init(fd: Int32, maximumLine: Int) {
        self.fd = fd
        self.maximumLine = maximumLine
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Connects to `host`:`port` (a name or an address, IPv4 or IPv6), trying every address
    /// it resolves to, each within `timeout`. Returns nil when woken first.
    static func connect(host: String, port: UInt16, timeout: Duration, maximumLine: Int,
                        wakeup: Wakeup) throws(Failure) -> LineSocket? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            entry = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                            info.ai_protocol)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            let socket = LineSocket(fd: fd, maximumLine: maximumLine)
            // A gpsd on another machine that vanishes without a word is noticed eventually.
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) == 0 { return socket }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                continue
            }
            switch wait(fd, events: Int16(POLLOUT), wakeup: wakeup, timeout: timeout) {
            case .woken: return nil
            case .timedOut:
                lastError = "no answer within \(timeout)"
            case .ready:
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return socket }
                lastError = String(cString: strerror(error))
            }
        }
        throw Failure(description: lastError)
    }

    /// Sends all of `text`; false when the connection is gone.
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
            } else if n < 0 && (errno == EAGAIN || errno == EINTR) {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 1000)
            } else {
                return false
            }
        }
        return true
    }

    /// The next line (without "\n" or "\r\n"), the end of the connection, or the wakeup.
    /// A line longer than `maximumLine` comes back cut at that length, once; the rest of it
    /// up to its newline is dropped, so a peer that never sends a newline cannot fill memory.
    func nextLine(wakeup: Wakeup) -> Event {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if discarding {
                    discarding = false
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return .line(line)
            }
            if buffer.count > maximumLine {
                let wasDiscarding = discarding
                let cut = Array(buffer.prefix(maximumLine + 1))
                buffer.removeAll(keepingCapacity: true)
                discarding = true
                if !wasDiscarding { return .line(cut) }
            }
            switch Self.wait(fd, events: Int16(POLLIN), wakeup: wakeup, timeout: nil) {
            case .woken: return .woken
            case .timedOut: continue
            case .ready: break
            }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer += chunk[..<n]
            } else if n < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                return .closed
            }
        }
    }

    private enum Readiness { case ready, timedOut, woken }

    /// Polls `fd` for `events` and the wakeup together.
    private static func wait(_ fd: Int32, events: Int16, wakeup: Wakeup, timeout: Duration?) -> Readiness {
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0)]
        let ms = timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
        let n = poll(&fds, 2, ms)
        if n < 0 { return errno == EINTR ? .timedOut : .ready }
        if fds[1].revents != 0 { return .woken }
        return n == 0 ? .timedOut : .ready
    }
}

/// A pipe whose read end becomes readable once `signal()` was called, and stays so: what
/// ends a `LineSocket` wait or a pause from another thread.
final class Wakeup: Sendable {
    let readFD: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "pipe: \(String(cString: strerror(errno)))")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Sleeps for `duration` unless signalled; true when signalled.
    func sleep(_ duration: Duration) -> Bool {
        var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        let ms = Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        return poll(&p, 1, ms) > 0
    }
}
