#if canImport(Glibc)
import Glibc
#endif

/// 127.0.0.1:`port` for the support code's raw sockets: one place builds the address.
enum Loopback {
    /// `connect(2)` to 127.0.0.1:`port`; true when connected (errno says why not).
    static func connect(_ fd: Int32, port: UInt16) -> Bool {
        withAddress(port) { Glibc.connect(fd, $0, $1) == 0 }
    }

    /// `bind(2)` to 127.0.0.1:`port`; true when bound (errno says why not).
    static func bind(_ fd: Int32, port: UInt16) -> Bool {
        withAddress(port) { Glibc.bind(fd, $0, $1) == 0 }
    }

    private static func withAddress(_ port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
