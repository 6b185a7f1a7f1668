import PlumbTestSupport
import Foundation
import GLib
@testable import Soup
import XCTest

/// Request heads over the limit get an answer (431, 414) instead of a reset.
final class RequestHeadTests: XCTestCase {
    /// The limit counts the whole head, up to and with its empty line.
    func testScanningAHead() {
        func scan(_ text: String, limit: Int) -> RequestHead {
            Array(text.utf8).withUnsafeBytes { RequestHead.scan($0, limit: limit) }
        }
        let head = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        XCTAssertEqual(scan(head, limit: head.utf8.count), .complete, "exactly the limit")
        XCTAssertEqual(scan(head + "body", limit: head.utf8.count), .complete, "a body may follow")
        XCTAssertEqual(scan(head, limit: head.utf8.count - 1), .tooLarge(status: 431), "one byte over")
        XCTAssertEqual(scan("GET / HTTP/1.1\nHost: x\n\n", limit: 100), .complete, "bare line feeds")
        XCTAssertEqual(scan("GET / HTTP/1.1\r\nHost: x\r\n", limit: 100), .incomplete)
        XCTAssertEqual(scan("", limit: 100), .incomplete)
        XCTAssertEqual(scan("GET /" + String(repeating: "a", count: 100), limit: 100), .tooLarge(status: 414),
                       "no end of the request line within the limit")
    }

    private func server() async throws -> TestServer {
        var router = Router()
        router.get("/status") { request in .json(["headers": request.headers.fields.count]) }
        return try await TestServer(router).start()
    }

    func testOversizedHeadersGet431WithAJSONError() async throws {
        let s = try await server()
        addTeardownBlock { await s.stop() }
        let port = s.address.port
        let limit = HTTPServer.Options().maxRequestHeadBytes
        XCTAssertEqual(limit, 32 << 10)

        let replies = try await onThread { () -> [(String, Int, String, String?, Bool)] in
            var replies: [(String, Int, String, String?, Bool)] = []
            func ask(_ what: String, _ head: String, on c: RawConnection? = nil) throws {
                let c = try c ?? RawConnection(port: port)
                try c.send(head)
                let r = try c.readResponse()
                let error = (try? r.json())?["error"] as? String ?? r.text
                replies.append((what, r.status, error, r.headers["Content-Type"], r.status >= 400 ? c.waitForClose() : true))
            }
            let big = String(repeating: "a", count: 100 << 10)
            try ask("one 100 KB header", "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(big)\r\n\r\n")
            let many = (0..<2000).map { "X-Header-\($0): \(String(repeating: "b", count: 40))\r\n" }.joined()
            try ask("2000 headers", "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\(many)\r\n")
            try ask("a 100 KB path", "GET /status?\(big) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // Just under the limit passes; the next request on the same connection is checked too.
            let c = try RawConnection(port: port)
            let fits = String(repeating: "c", count: limit - 200)
            try ask("a head just under the limit", "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Fits: \(fits)\r\n\r\n", on: c)
            try ask("100 KB of headers on a kept-alive connection", "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(big)\r\n\r\n", on: c)
            return replies
        }
        let expected: [(String, Int, String)] = [
            ("one 100 KB header", 431, "the request's head (request line and headers) is larger than 32768 bytes"),
            ("2000 headers", 431, "larger than 32768 bytes: send fewer or shorter headers"),
            ("a 100 KB path", 414, "the request line is longer than 32768 bytes"),
            ("a head just under the limit", 200, #"{"headers":2}"#),
            ("100 KB of headers on a kept-alive connection", 431, "larger than 32768 bytes"),
        ]
        XCTAssertEqual(replies.map(\.0), expected.map(\.0))
        for ((what, status, error, type, closed), e) in zip(replies, expected) {
            XCTAssertEqual(status, e.1, what)
            XCTAssertTrue(error.contains(e.2), "\(what): \(error)")
            XCTAssertEqual(type, "application/json", what)
            XCTAssertTrue(closed, "\(what): the connection is closed after the answer")
        }
        await eventually("the server holds no connection") { s.server.openConnections == 0 }
        let ok = try await curl([s.url("/status")])
        XCTAssertEqual(ok.status, 200)
    }
}
