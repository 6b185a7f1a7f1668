import Foundation

/// What a handler answers: a status, headers and a body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: HTTPBody

    public init(status: Int = 200, headers: HTTPHeaders = [:], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Bytes with a content type.
    public static func bytes(_ data: Data, contentType: String, status: Int = 200,
                             headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = contentType
        return HTTPResponse(status: status, headers: h, body: .bytes(data))
    }

    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        .bytes(Data(text.utf8), contentType: "text/plain; charset=utf-8", status: status)
    }

    /// A JSON body: keys sorted, so responses are stable.
    public static func json(_ value: some Encodable, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
        do {
            return .bytes(try JSON.encode(value), contentType: "application/json", status: status, headers: headers)
        } catch {
            return .error(500, "cannot encode the response as JSON: \(error)")
        }
    }

    /// The API's error shape: `{"error": "..."}` with a message that says what to fix.
    public static func error(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(["error": message], status: status, headers: headers)
    }

    /// A file streamed from disk in chunks, never read whole into memory.
    public static func file(_ path: String, contentType: String = "application/octet-stream",
                            headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = contentType
        return HTTPResponse(status: 200, headers: h, body: .file(path: path))
    }
}

/// A response body.
public enum HTTPBody: Sendable {
    case empty
    /// Sent with a Content-Length.
    case bytes(Data)
    /// A regular file, sent with a Content-Length in chunks as the client takes
    /// them. If it cannot be opened when the response starts, the client gets 404/500.
    case file(path: String)
    /// Chunked transfer: each element is sent as it arrives, the response ends
    /// when the stream finishes. When the client goes away the stream is
    /// cancelled (its `onTermination` runs), so producers can clean up.
    case stream(AsyncStream<Data>)
}

/// An error a handler throws that maps onto a response (status + JSON message).
public protocol HTTPResponseConvertible: Error {
    var response: HTTPResponse { get }
}

/// JSON encoding with stable output.
public enum JSON {
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }
}
