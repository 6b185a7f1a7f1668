import FoundationEssentials
import Glibc
import PlumbBase

/// What a handler answers: a status, headers and a body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: HTTPBody
    /// Called once when the exchange is over: true when the whole response was handed to
    /// the client's connection, false when it ended before (the client went away, the
    /// server stopped). Runs before a `removeWhenDone` file is deleted, so the owner of a
    /// file the client did not get can still keep it.
    public var onFinished: (@Sendable (_ delivered: Bool) -> Void)?

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
    /// `removeWhenDone` deletes it once sent or abandoned (a temporary clip).
    public static func file(_ path: String, contentType: String = "application/octet-stream",
                            headers: HTTPHeaders = [:], removeWhenDone: Bool = false) -> HTTPResponse {
        var h = headers
        h["Content-Type"] = contentType
        return HTTPResponse(status: 200, headers: h, body: .file(path: path, removeWhenDone: removeWhenDone))
    }
}

/// A response body.
public enum HTTPBody: Sendable {
    case empty
    /// Sent with a Content-Length.
    case bytes(Data)
    /// A regular file, sent with a Content-Length in chunks as the client takes
    /// them (at most one chunk in memory). If it cannot be opened when the
    /// response starts, the client gets a JSON 404. `removeWhenDone` deletes the
    /// file afterwards, whether the client took it all or went away.
    case file(path: String, removeWhenDone: Bool = false)
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

    /// JSON for an HTTP header value (`X-Plumb-Photo`): one line, ASCII only
    /// (other characters as `\uXXXX` escapes, which JSON readers undo).
    public static func headerValue(_ value: some Encodable) throws -> String {
        let text = String(decoding: try encode(value), as: UTF8.self)
        var out = ""
        for unit in text.utf16 {
            if unit < 0x20 || unit > 0x7E {
                out += String(cFormat: "\\u%04x", unit)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(unit)!)
            }
        }
        return out
    }
}
