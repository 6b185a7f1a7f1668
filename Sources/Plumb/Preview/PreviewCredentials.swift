/// Who may watch the RTSP preview: a user and password asked for with RTSP basic or
/// digest authentication.
public struct PreviewCredentials: Sendable, Equatable {
    public enum Method: String, Sendable, CaseIterable { case basic, digest }

    public var method: Method
    public var user: String
    public var password: String

    public init(method: Method, user: String, password: String) {
        self.method = method
        self.user = user
        self.password = password
    }
}
