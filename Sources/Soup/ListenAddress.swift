#if canImport(Glibc)
import Glibc
#endif

/// Where a server listens: an IP address literal and a port (0 = any free port).
///
/// Written `ADDR:PORT`, with IPv6 addresses in brackets: `127.0.0.1:8080`,
/// `0.0.0.0:8080`, `[::1]:8080`. Host names are not accepted: a daemon that binds
/// at boot should not depend on a resolver.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address literal, without brackets.
    public var host: String
    public var port: UInt16

    /// Loopback only: the safe default for a control API.
    public static func loopback(port: UInt16) -> ListenAddress {
        ListenAddress(validHost: "127.0.0.1", port: port)
    }

    private init(validHost: String, port: UInt16) {
        self.host = validHost
        self.port = port
    }

    /// A literal IPv4 or IPv6 address and a port; nil if `host` is not an address literal.
    public init?(host: String, port: UInt16) {
        guard ListenAddress.isIPv4(host) || ListenAddress.isIPv6(host) else { return nil }
        self.init(validHost: host, port: port)
    }

    /// Parses `ADDR:PORT` / `[V6ADDR]:PORT`. The error says what was expected.
    public init(parsing text: String) throws(ListenAddressError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"),
                  text[text.index(after: close)...].hasPrefix(":") else { throw ListenAddressError(text: text) }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
            guard ListenAddress.isIPv6(String(hostPart)) else { throw ListenAddressError(text: text) }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ListenAddressError(text: text) }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            // An unbracketed IPv6 address is ambiguous ("::1:8080").
            guard !hostPart.contains(":") else { throw ListenAddressError(text: text) }
        }
        guard let port = UInt16(portPart), portPart.allSatisfy(\.isASCII),
              let address = ListenAddress(host: String(hostPart), port: port) else {
            throw ListenAddressError(text: text)
        }
        self = address
    }

    public var isIPv6: Bool { host.contains(":") }

    /// Whether only this machine can connect: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z.
    /// Anything else (0.0.0.0, ::, an interface's address) is open to a network.
    public var isLoopback: Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }

    /// `ADDR:PORT`, brackets around IPv6: parses back to the same value.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// A URL prefix for clients, e.g. `http://127.0.0.1:8080`.
    public var httpURL: String { "http://\(description)" }

    static func isIPv4(_ s: String) -> Bool {
        var addr = in_addr()
        return inet_pton(AF_INET, s, &addr) == 1
    }

    static func isIPv6(_ s: String) -> Bool {
        var addr = in6_addr()
        return inet_pton(AF_INET6, s, &addr) == 1
    }
}

public struct ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    /// What a listen address looks like, for error messages.
    public static let accepted = "ADDR:PORT with an IP address and a port from 0 to 65535, e.g. 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080"
    public var description: String { "\"\(text)\" is not a listen address: expected \(ListenAddressError.accepted)" }
}
