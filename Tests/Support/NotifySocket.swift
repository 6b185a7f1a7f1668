import Foundation
import Synchronization
import XCTest

/// What systemd listens on for sd_notify(3): an AF_UNIX datagram socket, here bound by the
/// test itself at an abstract name (`NOTIFY_SOCKET=@...`). A thread of its own receives
/// every datagram with its arrival time; closed when the test ends.
public final class NotifySocket: Sendable {
    public struct Message: Sendable {
        public var text: String
        /// When it arrived, on the monotonic clock.
        public var at: ContinuousClock.Instant
        /// Its `KEY=value` lines.
        public var lines: [String] { text.split(separator: "\n").map(String.init) }
    }

    /// The name to give as `NOTIFY_SOCKET` ("@plumb-notify-...").
    public let name: String
    private let fd: Int32
    private let received = Mutex<[Message]>([])
    private let open = Atomic(true)
    private let done = DispatchSemaphore(value: 0)

    public init(_ test: XCTestCase) throws {
        name = "@plumb-notify-\(UUID().uuidString.prefix(8))"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ToolError("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = [UInt8(0)] + Array(name.utf8.dropFirst())
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.enumerated() { raw[i] = b } }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else {
            Glibc.close(fd)
            throw ToolError("bind \(name): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while open.load(ordering: .relaxed) {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { continue }
                let message = Message(text: String(decoding: buffer[..<n], as: UTF8.self), at: .now)
                received.withLock { $0.append(message) }
            }
            done.signal()
        }
        thread.start()
        test.addTeardownBlock { [self] in close() }
    }

    /// Stops receiving and closes the socket; idempotent.
    public func close() {
        guard open.exchange(false, ordering: .relaxed) else { return }
        done.wait()
        Glibc.close(fd)
    }

    public var messages: [Message] { received.withLock { $0 } }

    /// The messages holding `line` (e.g. "WATCHDOG=1"), or starting with it when it ends in "=".
    public func with(_ line: String) -> [Message] {
        messages.filter { m in m.lines.contains { line.hasSuffix("=") ? $0.hasPrefix(line) : $0 == line } }
    }

    /// Every `STATUS=` text, in order.
    public var statuses: [String] {
        messages.flatMap { $0.lines.filter { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) } }
    }
}
