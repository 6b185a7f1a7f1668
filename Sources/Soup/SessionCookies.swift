import FoundationEssentials
import Glibc
import PlumbBase
import Synchronization

/// Sessions for a browser page, where `EventSource`, `<img>` and `<video>` cannot send an
/// `Authorization` header: the page trades the bearer token once (`POST /session`) for a
/// random session id in a cookie that is `HttpOnly` (no script reads it), `SameSite=Strict`
/// (no other site's page sends it) and `Path=/`. The token never travels in a URL.
/// Ids live in memory: a restart of the server ends every session.
public final class SessionCookies: Sendable {
    public static let name = "plumb_session"
    /// The most sessions kept; the oldest goes first.
    public let capacity: Int
    private let ids = Mutex<[[UInt8]]>([])

    public init(capacity: Int = 64) { self.capacity = capacity }

    /// A new session: the `Set-Cookie` value to answer with.
    public func issue() -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        ids.withLock { ids in
            ids.append(Array(Self.hex(id).utf8))
            if ids.count > capacity { ids.removeFirst(ids.count - capacity) }
        }
        return "\(Self.name)=\(Self.hex(id)); Path=/; HttpOnly; SameSite=Strict"
    }

    /// Whether a `Cookie` header carries a live session (compared in constant time).
    public func accepts(cookieHeader: String?) -> Bool {
        guard let given = Self.value(in: cookieHeader) else { return false }
        let bytes = Array(given.utf8)
        return ids.withLock { ids in
            ids.reduce(false) { found, id in BearerToken.constantTimeEquals(bytes, id) || found }
        }
    }

    /// Ends the session a `Cookie` header carries; the `Set-Cookie` value that clears it.
    @discardableResult
    public func end(cookieHeader: String?) -> String {
        if let given = Self.value(in: cookieHeader) {
            let bytes = Array(given.utf8)
            ids.withLock { $0.removeAll { $0 == bytes } }
        }
        return "\(Self.name)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
    }

    public var count: Int { ids.withLock { $0.count } }

    static func value(in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmed == name {
                return parts[1].trimmed
            }
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(cFormat: "%02x", $0) }.joined() }
}
