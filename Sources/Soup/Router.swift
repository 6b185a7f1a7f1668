import FoundationEssentials
import Glibc

/// Routes requests by method and path to async handlers.
///
/// Patterns are paths whose segments are literals or `{name}` parameters:
/// `/status`, `/recordings/{name}`. A parameter matches one non-empty segment,
/// percent-decoded (so `%2F` arrives as `/` inside the value: handlers that turn
/// a parameter into a file name must validate it). When several routes match,
/// the one with more literal segments wins (`/recordings/latest` before
/// `/recordings/{name}`). A GET route also answers HEAD (soup sends no body).
/// A path with routes but none for the method resolves to 405 with the allowed methods.
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    public struct Route: Sendable {
        public let method: String
        public let pattern: String
        /// False for routes that answer without the bearer token (health checks).
        public let requiresAuthentication: Bool
        let segments: [Segment]
        let handler: Handler

        var literalCount: Int { segments.filter { if case .literal = $0 { true } else { false } }.count }
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public enum Resolution: Sendable {
        case matched(Route, parameters: [String: String])
        case notFound
        /// The path exists for other methods; `allowed` is sorted, for the Allow header.
        case methodNotAllowed(allowed: [String])
    }

    public private(set) var routes: [Route] = []

    public init() {}

    /// Adds a route. `pattern` must start with `/`; a pattern added twice for
    /// the same method is a programming error.
    public mutating func add(_ method: String, _ pattern: String, requiresAuthentication: Bool = true,
                             _ handler: @escaping Handler) {
        let segments = Router.parse(pattern: pattern)
        precondition(!routes.contains { $0.method == method.uppercased() && $0.segments == segments },
                     "route \(method) \(pattern) added twice")
        routes.append(Route(method: method.uppercased(), pattern: pattern,
                            requiresAuthentication: requiresAuthentication, segments: segments, handler: handler))
    }

    public mutating func get(_ pattern: String, requiresAuthentication: Bool = true, _ handler: @escaping Handler) {
        add("GET", pattern, requiresAuthentication: requiresAuthentication, handler)
    }

    public mutating func post(_ pattern: String, requiresAuthentication: Bool = true, _ handler: @escaping Handler) {
        add("POST", pattern, requiresAuthentication: requiresAuthentication, handler)
    }

    /// Finds the route for a request; `path` is as sent (percent-encoded, no query).
    public func resolve(method: String, path: String) -> Resolution {
        guard let segments = Router.split(path: path) else { return .notFound }
        var candidates: [(Route, [String: String])] = []
        for route in routes {
            if let parameters = Router.match(route.segments, segments) { candidates.append((route, parameters)) }
        }
        guard !candidates.isEmpty else { return .notFound }
        let wanted = method.uppercased() == "HEAD" ? "GET" : method.uppercased()
        let forMethod = candidates.filter { $0.0.method == wanted }
        if let best = forMethod.max(by: { $0.0.literalCount < $1.0.literalCount }) {
            return .matched(best.0, parameters: best.1)
        }
        var allowed = Set(candidates.map(\.0.method))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allowed: allowed.sorted())
    }

    static func parse(pattern: String) -> [Segment] {
        precondition(pattern.hasPrefix("/"), "route pattern \"\(pattern)\" must start with /")
        if pattern == "/" { return [] }
        return pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { s in
            if s.hasPrefix("{"), s.hasSuffix("}"), s.count > 2 { return .parameter(String(s.dropFirst().dropLast())) }
            precondition(!s.isEmpty, "route pattern \"\(pattern)\" has an empty segment")
            return .literal(String(s))
        }
    }

    /// Decoded segments; nil for a path that is not absolute or has a bad escape.
    static func split(path: String) -> [String]? {
        guard path.hasPrefix("/") else { return nil }
        if path == "/" { return [] }
        var result: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = Self.percentDecoded(raw) else { return nil }
            result.append(decoded)
        }
        return result
    }

    static func match(_ pattern: [Segment], _ path: [String]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (p, s) in zip(pattern, path) {
            switch p {
            case .literal(let l): guard l == s else { return nil }
            case .parameter(let name):
                guard !s.isEmpty else { return nil }
                parameters[name] = s
            }
        }
        return parameters
    }
}

extension Router {
    /// `%XX` escapes decoded, as Foundation's `removingPercentEncoding` did: nil for a broken
    /// escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = Substring(text).utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            let hex = rest.prefix(2)
            guard hex.count == 2, hex.allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }),
                  let value = UInt8(String(decoding: hex, as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            rest = rest.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
