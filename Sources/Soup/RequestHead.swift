import FoundationEssentials
import Glibc

/// What the first bytes a client sent say about its request's head (the request
/// line and the header fields, up to the empty line that ends them).
///
/// The server looks at a head before libsoup reads it: libsoup 3.2 drops a
/// connection whose head passes its own 64 KiB limit with no answer at all (the
/// client sees a reset), so an oversized head is answered here instead.
enum RequestHead: Equatable {
    /// The whole head is there, within the limit.
    case complete
    /// Not all of it yet, and what is there fits.
    case incomplete
    /// Past the limit without an end: 414 when even the request line has no end, 431 else.
    case tooLarge(status: Int)

    /// Scans `bytes` (what was received so far, or its first `limit + 1` bytes).
    static func scan(_ bytes: UnsafeRawBufferPointer, limit: Int) -> RequestHead {
        let count = min(bytes.count, limit)
        var sawLineEnd = false
        var i = 0
        while i < count {
            if bytes[i] == UInt8(ascii: "\n") {
                sawLineEnd = true
                // An empty line after this one ends the head: "\n\n" or "\n\r\n" (soup accepts both).
                if i + 1 < count, bytes[i + 1] == UInt8(ascii: "\n") { return .complete }
                if i + 2 < count, bytes[i + 1] == UInt8(ascii: "\r"), bytes[i + 2] == UInt8(ascii: "\n") { return .complete }
            }
            i += 1
        }
        guard bytes.count > limit else { return .incomplete }
        return .tooLarge(status: sawLineEnd ? 431 : 414)
    }

    /// The answer to a head that is too large, written by the server itself (soup never
    /// saw the request): a JSON error, and the connection closes after it.
    static func refusal(status: Int, limit: Int, serverHeader: String?, date: String) -> Data {
        let reason: String
        let message: String
        if status == 414 {
            reason = "URI Too Long"
            message = "the request line is longer than \(limit) bytes: use a shorter path and query"
        } else {
            reason = "Request Header Fields Too Large"
            message = "the request's head (request line and headers) is larger than \(limit) bytes: send fewer or shorter headers"
        }
        let body = (try? JSON.encode(["error": message])) ?? Data()
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        head += "Date: \(date)\r\n"
        if let serverHeader { head += "Server: \(serverHeader)\r\n" }
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Data(head.utf8) + body
    }
}
