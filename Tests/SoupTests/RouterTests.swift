import Foundation
import GLib
import Soup
import XCTest

/// The pure parts: routing, token comparison, listen addresses, event framing.
final class RouterTests: XCTestCase {
    private func router() -> Router {
        var r = Router()
        r.get("/status") { _ in .text("status") }
        r.post("/photo") { _ in .text("photo") }
        r.post("/recording/start") { _ in .text("start") }
        r.get("/recordings") { _ in .text("list") }
        r.get("/recordings/{name}") { _ in .text("one") }
        r.get("/recordings/latest") { _ in .text("latest") }
        r.add("DELETE", "/recordings/{name}") { _ in .text("delete") }
        r.get("/") { _ in .text("root") }
        return r
    }

    private func resolve(_ method: String, _ path: String) -> String {
        switch router().resolve(method: method, path: path) {
        case let .matched(route, parameters):
            let p = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return "\(route.method) \(route.pattern)" + (p.isEmpty ? "" : " [\(p)]")
        case .notFound: return "404"
        case .methodNotAllowed(let allowed): return "405 " + allowed.joined(separator: ",")
        }
    }

    func testResolution() {
        XCTAssertEqual(resolve("GET", "/status"), "GET /status")
        XCTAssertEqual(resolve("HEAD", "/status"), "GET /status")
        XCTAssertEqual(resolve("get", "/status"), "GET /status", "methods are case-insensitive")
        XCTAssertEqual(resolve("POST", "/status"), "405 GET,HEAD")
        XCTAssertEqual(resolve("GET", "/photo"), "405 POST")
        XCTAssertEqual(resolve("GET", "/recording/start"), "405 POST")
        XCTAssertEqual(resolve("GET", "/recordings/a.mp4"), "GET /recordings/{name} [name=a.mp4]")
        XCTAssertEqual(resolve("DELETE", "/recordings/a.mp4"), "DELETE /recordings/{name} [name=a.mp4]")
        XCTAssertEqual(resolve("PUT", "/recordings/a.mp4"), "405 DELETE,GET,HEAD")
        XCTAssertEqual(resolve("GET", "/recordings/latest"), "GET /recordings/latest", "literal beats parameter")
        XCTAssertEqual(resolve("GET", "/recordings/my%20clip.mp4"), "GET /recordings/{name} [name=my clip.mp4]")
        XCTAssertEqual(resolve("GET", "/recordings/a%2Fb"), "GET /recordings/{name} [name=a/b]")
        XCTAssertEqual(resolve("GET", "/"), "GET /")
        XCTAssertEqual(resolve("GET", "/recordings/"), "404", "a parameter is never empty")
        XCTAssertEqual(resolve("GET", "/status/"), "404", "no trailing-slash guessing")
        XCTAssertEqual(resolve("GET", "/recordings/a/b"), "404")
        XCTAssertEqual(resolve("GET", "/recordings/%zz"), "404", "a bad escape matches nothing")
        XCTAssertEqual(resolve("GET", "status"), "404")
        XCTAssertEqual(resolve("GET", "/nothing"), "404")
    }

    func testConstantTimeEquality() {
        let eq = BearerToken.constantTimeEquals
        XCTAssertTrue(eq(Array("abc".utf8), Array("abc".utf8)))
        XCTAssertTrue(eq([], []))
        XCTAssertFalse(eq(Array("abd".utf8), Array("abc".utf8)))
        XCTAssertFalse(eq(Array("ab".utf8), Array("abc".utf8)), "a prefix is not equal")
        XCTAssertFalse(eq(Array("abcd".utf8), Array("abc".utf8)), "an extension is not equal")
        XCTAssertFalse(eq(Array("abc\0".utf8), Array("abc".utf8)))
        XCTAssertFalse(eq([], Array("abc".utf8)))
        XCTAssertFalse(eq(Array("abc".utf8), []))
    }

    func testBearerCheck() {
        let token = BearerToken("0123456789abcdef")
        XCTAssertEqual(token.check(authorization: nil), .missing)
        XCTAssertEqual(token.check(authorization: "Basic 0123456789abcdef"), .missing)
        XCTAssertEqual(token.check(authorization: "Bearer"), .missing)
        XCTAssertEqual(token.check(authorization: "Bearer 0123456789abcdeF"), .invalid)
        XCTAssertEqual(token.check(authorization: "Bearer 0123456789abcdef"), .accepted)
        XCTAssertEqual(token.check(authorization: "BEARER  0123456789abcdef "), .accepted)
        XCTAssertEqual(token.challenge(.invalid).status, 401)
    }

    func testListenAddresses() throws {
        XCTAssertEqual(try ListenAddress(parsing: "127.0.0.1:8080"), ListenAddress(host: "127.0.0.1", port: 8080))
        XCTAssertEqual(try ListenAddress(parsing: "0.0.0.0:0").port, 0)
        let v6 = try ListenAddress(parsing: "[::1]:8080")
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.description, "[::1]:8080")
        XCTAssertEqual(try ListenAddress(parsing: v6.description), v6)
        XCTAssertEqual(try ListenAddress(parsing: "[fe80::1]:1").host, "fe80::1")
        for bad in ["", "8080", ":8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80a",
                    "localhost:8080", "::1:8080", "[::1]8080", "[::1]", "[127.0.0.1]:80", "256.0.0.1:80", "127.0.0.1:８０"] {
            XCTAssertThrowsError(try ListenAddress(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains("expected ADDR:PORT"), "\(error)")
            }
        }
        XCTAssertNil(ListenAddress(host: "example.com", port: 80))
        XCTAssertEqual(ListenAddress.loopback(port: 8080).httpURL, "http://127.0.0.1:8080")
        // Only loopback addresses keep the API on this machine.
        for local in ["127.0.0.1:80", "127.1.2.3:80", "[::1]:80", "[::ffff:127.0.0.1]:80"] {
            XCTAssertTrue(try ListenAddress(parsing: local).isLoopback, local)
        }
        for open in ["0.0.0.0:80", "[::]:80", "192.168.1.10:80", "[fe80::1]:80", "[::ffff:10.0.0.1]:80", "128.0.0.1:80"] {
            XCTAssertFalse(try ListenAddress(parsing: open).isLoopback, open)
        }
    }

    func testEventFraming() throws {
        XCTAssertEqual(String(decoding: ServerSentEvent(data: "x").encoded, as: UTF8.self), "data: x\n\n")
        XCTAssertEqual(String(decoding: ServerSentEvent(event: "a\nb", data: "1\r\n2", id: "7\n").encoded, as: UTF8.self),
                       "id: 7 \nevent: a b\ndata: 1\ndata: 2\n\n", "newlines cannot inject fields or end the event")
        XCTAssertEqual(String(decoding: ServerSentEvent(data: "").encoded, as: UTF8.self), "data: \n\n")
        let json = try ServerSentEvent(event: "orientation", json: ["angle": 90])
        XCTAssertEqual(json.data, #"{"angle":90}"#)
    }
}
