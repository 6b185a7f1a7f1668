import FoundationEssentials
import Glibc

/// A request as a route handler sees it: a copy of everything soup read, so a
/// handler can run anywhere while the connection waits.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ... as sent.
    public var method: String
    /// The path as sent, still percent-encoded (`/recordings/a%20b.mp4`).
    public var path: String
    /// Query parameters, decoded; the last value wins for a repeated name.
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: Data
    /// The values of the route's `{name}` segments, percent-decoded.
    public var parameters: [String: String]
    /// The client's address, for logs.
    public var remoteAddress: String?

    public init(method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = [:],
                body: Data = Data(), parameters: [String: String] = [:], remoteAddress: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.parameters = parameters
        self.remoteAddress = remoteAddress
    }
}
