import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on 127.0.0.1 that plays gpsd: it accepts clients, keeps what they send
/// (the WATCH request) and sends them whatever a test writes, garbage included. Stopped
/// (listener and every client closed, its thread ended) by `stop()` or when dropped.
final class FakeGPSD: Sendable {
    let port: UInt16
    private let listener: Int32
    private let clients = Mutex<[Int32]>([])
    private let received = Mutex<[UInt8]>([])
    private let accepted = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: a free one).
    init(port: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 }
        }
        guard bound else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw NSError(domain: "FakeGPSD", code: 1, userInfo: [NSLocalizedDescriptionKey: "bind: \(why)"])
        }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.port = UInt16(bigEndian: addr.sin_port)
        let thread = Thread { [self] in serve() }
        thread.name = "fake-gpsd"
        thread.start()
    }

    deinit { stop() }

    /// Clients accepted so far.
    var connections: Int { accepted.load(ordering: .relaxed) }

    /// Everything the clients sent, as text.
    var request: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

    /// Sends `text` as it is to every connected client.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        for fd in clients.withLock({ $0 }) {
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Hangs up on every client (the listener stays).
    func dropClients() {
        let all = clients.withLock { c in defer { c.removeAll() }; return c }
        for fd in all {
            shutdown(fd, Int32(SHUT_RDWR))
        }
        // Closed by the serving thread, which polls them.
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
    }

    /// Accepts and reads until stopped, polling the listener and the clients.
    private func serve() {
        var open: [Int32] = []
        defer {
            for fd in open { close(fd) }
            close(listener)
            finished.signal()
        }
        while !stopped.load(ordering: .acquiring) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 50) >= 0 else { continue }
            if fds[0].revents != 0 && !stopped.load(ordering: .acquiring) {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    open.append(client)
                    clients.withLock { $0.append(client) }
                    accepted.add(1, ordering: .relaxed)
                }
            }
            for p in fds.dropFirst() where p.revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(p.fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    received.withLock { $0 += chunk[..<n] }
                } else {
                    clients.withLock { $0.removeAll { $0 == p.fd } }
                    open.removeAll { $0 == p.fd }
                    close(p.fd)
                }
            }
        }
    }
}
