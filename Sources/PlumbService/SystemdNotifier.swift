import FoundationEssentials
import Glibc
#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram per message to the AF_UNIX socket systemd
/// names in `$NOTIFY_SOCKET` (a path, or an abstract name written with a leading '@').
/// Made only when that variable is set: a daemon started any other way sends nothing.
public final class SystemdNotifier: Sendable {
    /// The socket, as `$NOTIFY_SOCKET` named it.
    public let socketName: String
    /// How often systemd wants `WATCHDOG=1` at the least (`$WATCHDOG_USEC`); nil when its
    /// watchdog is off for this process.
    public let watchdogTimeout: Duration?
    private let fd: Int32
    /// sockaddr_un, filled once.
    private let address: Data

    /// From the environment systemd sets (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`);
    /// nil without `NOTIFY_SOCKET`. A `WATCHDOG_PID` of another process leaves the watchdog off.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> SystemdNotifier?
    {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        var timeout: Duration?
        if let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
            let forUs = environment["WATCHDOG_PID"].flatMap { Int32($0) }.map { $0 == getpid() } ?? true
            if forUs { timeout = .microseconds(Int64(clamping: usec)) }
        }
        return try SystemdNotifier(socket: name, watchdogTimeout: timeout)
    }

    /// - Throws: `ServeError` when `socket` is no usable AF_UNIX name.
    public init(socket name: String, watchdogTimeout: Duration? = nil) throws {
        socketName = name
        self.watchdogTimeout = watchdogTimeout
        var path = Array(name.utf8)
        guard path.first == UInt8(ascii: "/") || path.first == UInt8(ascii: "@") else {
            throw ServeError("NOTIFY_SOCKET=\(name) is neither a path nor an abstract name (@...)")
        }
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.count < capacity else { throw ServeError("NOTIFY_SOCKET=\(name) is too long for a unix socket") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count
        address = withUnsafeBytes(of: &addr) { Data($0.prefix(length)) }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServeError("cannot make a socket for NOTIFY_SOCKET: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Sends one message ("READY=1", "STATUS=...", several lines at once); false when it
    /// did not go (systemd gone: nothing to do about it but go on).
    @discardableResult
    public func send(_ message: String) -> Bool {
        let bytes = Array(message.utf8)
        let sent = address.withUnsafeBytes { addr in
            bytes.withUnsafeBytes { body in
                sendto(fd, body.baseAddress, body.count, Int32(MSG_NOSIGNAL),
                       addr.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count))
            }
        }
        return sent == bytes.count
    }
}
