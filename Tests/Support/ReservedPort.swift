import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that stays a test's own from start to end, for tests that need a
/// port before a server listens on it (a client that must find it refused) or again after a
/// server stopped (a restart on the same port). A port found free and closed could be taken
/// in between: by an outgoing connection (the kernel hands those ports from
/// `ip_local_port_range`, busy while packages download) or by any server binding port 0.
///
/// So the port is chosen outside the kernel's ephemeral range, where neither outgoing
/// connections nor binds to port 0 land, and held all along by a socket bound with
/// SO_REUSEADDR and never listening: connections to it are refused, nobody else can bind it,
/// yet a server that also sets SO_REUSEADDR binds and listens on it while it is held (GLib's
/// `g_socket_bind` with `allow_reuse`, as GStreamer's RTSP server and libsoup call it; gpsd;
/// FakeGPSD). A server still listening keeps every other one out, so "stop releases the
/// port" stays testable. Closed on `release()` or when the test ends, pass or fail.
public final class ReservedPort: @unchecked Sendable {  // `fd` changes only in release(), on the test's thread.
    public let port: UInt16
    private var fd: Int32

    public init(_ test: XCTestCase) throws {
        let range = Self.ephemeralRange()
        // Below the ephemeral range when there is room there (Linux's default 32768-60999),
        // else above it.
        let outside: ClosedRange<Int> = range.lowerBound > 11_000 ? 10_000...(range.lowerBound - 1)
                                                                 : (range.upperBound + 1)...65_535
        var tried: [Int] = []
        for _ in 0..<200 {
            let candidate = Int.random(in: outside)
            tried.append(candidate)
            if let fd = Self.hold(UInt16(candidate)) {
                self.fd = fd
                port = UInt16(candidate)
                test.addTeardownBlock { [self] in release() }
                return
            }
        }
        throw ToolError("no free port in \(outside) to hold (tried \(tried.count), outside the ephemeral range \(range))")
    }

    deinit { release() }

    /// Stops holding the port (idempotent).
    public func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    /// `net.ipv4.ip_local_port_range`: where the kernel picks ports for outgoing connections and port 0.
    static func ephemeralRange() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
        return bounds[0]...bounds[1]
    }

    /// A socket bound to 127.0.0.1:`port` with SO_REUSEADDR, not listening; nil when the port is taken.
    static func hold(_ port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard Loopback.bind(fd, port: port) else {
            close(fd)
            return nil
        }
        return fd
    }
}
