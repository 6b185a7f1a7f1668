import Foundation
import GLib
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PlumbTestSupport
import Soup
import Synchronization
import XCTest

/// An error a handler throws that becomes a JSON error response.
private struct Refusal: HTTPResponseConvertible {
    var status: Int
    var message: String
    var response: HTTPResponse { .error(status, message) }
}

private struct Echo: Codable {
    var method: String
    var path: String
    var parameters: [String: String]
    var query: [String: String]
    var body: String
    var header: String?
}

final class HTTPServerTests: XCTestCase {
    /// Test routes that answer every status the API uses.
    private func statusRouter() -> Router {
        var router = Router()
        router.get("/ok") { _ in .json(["state": "fine"]) }
        router.post("/ok") { _ in .json(["state": "posted"]) }
        router.post("/clip") { request in
            guard let seconds = request.query["seconds"].flatMap(Int.init), (1...60).contains(seconds) else {
                throw Refusal(status: 400, message: "seconds must be a whole number from 1 to 60, e.g. /clip?seconds=5")
            }
            return .json(["seconds": seconds])
        }
        router.post("/busy") { _ in throw Refusal(status: 409, message: "a recording is already running; stop it first") }
        router.get("/camera") { _ in throw Refusal(status: 503, message: "the camera is unavailable") }
        router.get("/crash") { _ in throw CocoaError(.fileReadUnknown) }
        router.add("PUT", "/echo/{name}") { request in
            .json(Echo(method: request.method, path: request.path, parameters: request.parameters, query: request.query,
                       body: String(decoding: request.body, as: UTF8.self), header: request.headers["x-test"]))
        }
        router.get("/echo/{name}") { request in
            .json(Echo(method: request.method, path: request.path, parameters: request.parameters, query: request.query,
                       body: "", header: request.headers["X-Test"]))
        }
        router.get("/echo/fixed") { _ in .text("the literal route wins") }
        return router
    }

    func testEveryStatusWithJSONErrors() async throws {
        let s = try await TestServer(statusRouter()).start()
        addTeardownBlock { await s.stop() }

        let ok = try await curl([s.url("/ok")])
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.headers["Content-Type"], "application/json")
        XCTAssertEqual(ok.headers["Server"], "plumb")
        XCTAssertEqual(try ok.json()["state"] as? String, "fine")
        do {
            let value = try await curl(["-X", "POST", s.url("/ok")]).json()["state"] as? String
            XCTAssertEqual(value, "posted")
        }

        let clip = try await curl(["-X", "POST", s.url("/clip?seconds=5")])
        XCTAssertEqual(clip.status, 200)
        XCTAssertEqual(try clip.json()["seconds"] as? Int, 5)

        // Each error is JSON {"error": "..."} saying what to fix.
        let expectations: [(args: [String], status: Int, error: String)] = [
            (["-X", "POST", s.url("/clip?seconds=600")], 400, "seconds must be a whole number from 1 to 60"),
            (["-X", "POST", s.url("/clip")], 400, "seconds must be"),
            ([s.url("/nothing/here")], 404, "no such endpoint: GET /nothing/here"),
            (["-X", "DELETE", s.url("/ok")], 405, "/ok does not accept DELETE; use GET or HEAD or POST"),
            (["-X", "POST", s.url("/busy")], 409, "a recording is already running"),
            ([s.url("/camera")], 503, "the camera is unavailable"),
            ([s.url("/crash")], 500, "internal error"),
        ]
        for e in expectations {
            let r = try await curl(e.args)
            XCTAssertEqual(r.status, e.status, "\(e.args)")
            XCTAssertEqual(r.headers["Content-Type"], "application/json", "\(e.args)")
            let message = try XCTUnwrap(try r.json()["error"] as? String, "\(e.args): \(r.text)")
            XCTAssertTrue(message.contains(e.error), "\(e.args): \(message)")
        }
        let notAllowed = try await curl(["-X", "DELETE", s.url("/ok")])
        XCTAssertEqual(notAllowed.headers["Allow"], "GET, HEAD, POST")
        // HEAD is answered by the GET route, without a body.
        let head = try await curl(["-I", s.url("/ok")])
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], "16")
        XCTAssertFalse(head.text.contains("fine"), "no body after HEAD: \(head.text)")
    }

    func testPathParametersQueryHeadersAndBody() async throws {
        let s = try await TestServer(statusRouter()).start()
        addTeardownBlock { await s.stop() }

        let put = try await curl(["-X", "PUT", "-H", "X-Test: yes", "--data-binary", "hello body",
                                  s.url("/echo/clip%20one.mp4?a=1&b=two%20words")])
        XCTAssertEqual(put.status, 200, put.text)
        let echo = try JSONDecoder().decode(Echo.self, from: put.body)
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(echo.path, "/echo/clip%20one.mp4", "the path is handed over as sent")
        XCTAssertEqual(echo.parameters, ["name": "clip one.mp4"], "parameters are decoded")
        XCTAssertEqual(echo.query, ["a": "1", "b": "two words"])
        XCTAssertEqual(echo.body, "hello body")
        XCTAssertEqual(echo.header, "yes", "headers are found in any case")

        // An encoded slash stays inside the parameter (so handlers must validate names).
        let slash = try await curl([s.url("/echo/..%2Fetc%2Fpasswd")])
        XCTAssertEqual(try JSONDecoder().decode(Echo.self, from: slash.body).parameters["name"], "../etc/passwd")
        // A literal route beats a parameter route.
        do {
            let value = try await curl([s.url("/echo/fixed")]).text
            XCTAssertEqual(value, "the literal route wins")
        }
        // Too many segments is not the parameter route.
        do {
            let value = try await curl([s.url("/echo/a/b")]).status
            XCTAssertEqual(value, 404)
        }
    }

    /// Issue 22: libsoup hands query values over as C strings, so `device=test%00x` reached
    /// the handler as `test`. A NUL in the query or the path is a 400 before any handler;
    /// an encoded percent sign followed by 00 is not a NUL.
    func testANULInTheQueryOrThePathIsRefused() async throws {
        let s = try await TestServer(statusRouter()).start()
        addTeardownBlock { await s.stop() }
        for path in ["/echo/x?a=test%00x", "/echo/x?a=%00", "/echo/x?a%00b=1", "/echo/a%00b", "/echo/x?a=1&b=%00"] {
            let r = try await curl([s.url(path)])
            XCTAssertEqual(r.status, 400, "\(path): \(r.text)")
            XCTAssertTrue(r.text.contains("NUL byte (%00)"), r.text)
        }
        let literal = try await curl([s.url("/echo/x?a=%2500")])
        XCTAssertEqual(literal.status, 200, literal.text)
        XCTAssertEqual(try JSONDecoder().decode(Echo.self, from: literal.body).query, ["a": "%00"])
    }

    /// Issue 22: an HTTP/1.0 request with `Connection: Keep-Alive` was answered without it
    /// and closed. It gets `Connection: keep-alive` and the connection takes the next request;
    /// a 1.0 request without it is still closed after its answer.
    func testHTTP10KeepAliveIsAnsweredAndKept() async throws {
        let s = try await TestServer(statusRouter()).start()
        addTeardownBlock { await s.stop() }
        let port = s.address.port
        try await onThread {
            let c = try RawConnection(port: port)
            for path in ["/ok", "/nothing", "/ok"] {
                try c.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: Keep-Alive\r\n\r\n")
                let r = try c.readResponse()
                XCTAssertEqual(r.status, path == "/ok" ? 200 : 404, r.text)
                XCTAssertEqual(r.headers["Connection"]?.lowercased(), "keep-alive", path)
            }
            XCTAssertTrue(c.isOpenForWriting())
            let plain = try RawConnection(port: port)
            try plain.send("GET /ok HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            XCTAssertEqual(try plain.readResponse().status, 200)
            XCTAssertTrue(plain.waitForClose(), "an HTTP/1.0 request without keep-alive ends its connection")
        }
    }

    func testRequestBodyLimit() async throws {
        var options = HTTPServer.Options()
        options.maxRequestBodyBytes = 1000
        let s = try await TestServer(statusRouter(), options: options).start()
        addTeardownBlock { await s.stop() }
        let dir = try temporaryDirectory(self, "plumb-soup")
        try Data(count: 5000).write(to: URL(fileURLWithPath: dir.appendingPathComponent("big").path))
        let big = try await curl(["-X", "PUT", "--data-binary", "@" + dir.appendingPathComponent("big").path, s.url("/echo/x")])
        XCTAssertEqual(big.status, 413)
        XCTAssertTrue(try XCTUnwrap(big.json()["error"] as? String).contains("at most 1000 bytes"))
        let small = try await curl(["-X", "PUT", "--data-binary", "fits", s.url("/echo/x")])
        XCTAssertEqual(small.status, 200)
    }

    func testBearerToken() async throws {
        var router = statusRouter()
        router.get("/health", requiresAuthentication: false) { _ in .text("up") }
        let token = "s3cret-token-0123456789"
        let s = try await TestServer(router, options: HTTPServer.Options(bearerToken: token)).start()
        addTeardownBlock { await s.stop() }

        let missing = try await curl([s.url("/ok")])
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.headers["WWW-Authenticate"], "Bearer realm=\"plumb\"")
        XCTAssertTrue(try XCTUnwrap(missing.json()["error"] as? String).contains("Authorization: Bearer TOKEN"))

        let wrong = try await curl(["-H", "Authorization: Bearer s3cret-token-0123456788", s.url("/ok")])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.headers["WWW-Authenticate"], "Bearer realm=\"plumb\", error=\"invalid_token\"")
        do {
            let value = try await curl(["-H", "Authorization: Bearer \(token)x", s.url("/ok")]).status
            XCTAssertEqual(value, 401)
        }
        do {
            let value = try await curl(["-H", "Authorization: Basic \(token)", s.url("/ok")]).status
            XCTAssertEqual(value, 401)
        }

        do {
            let value = try await curl(["-H", "Authorization: Bearer \(token)", s.url("/ok")]).status
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await curl(["-H", "authorization: bearer \(token)", s.url("/ok")]).status
            XCTAssertEqual(value, 200)
        }
        // Without the token, unknown paths are 401 too: the API's shape is not revealed.
        do {
            let value = try await curl([s.url("/nothing")]).status
            XCTAssertEqual(value, 401)
        }
        do {
            let value = try await curl(["-H", "Authorization: Bearer \(token)", s.url("/nothing")]).status
            XCTAssertEqual(value, 404)
        }
        // A route may opt out (health checks).
        do {
            let value = try await curl([s.url("/health")]).text
            XCTAssertEqual(value, "up")
        }
    }

    func testPortZeroPicksAFreePortAndAPortInUseIsAClearError() async throws {
        let picker = try await TestServer(statusRouter()).start()
        XCTAssertNotEqual(picker.address.port, 0)
        XCTAssertTrue(isListening(port: picker.address.port))
        XCTAssertEqual(picker.server.address, picker.address)
        await picker.stop()

        // The rest on a port held for the test (ReservedPort): between the first server's stop
        // and the next one's start nothing else can take it, as a port 0 gave could be.
        let port = try ReservedPort(self).port
        let first = TestServer(statusRouter())
        let bound = try await first.server.start(listen: .loopback(port: port))
        XCTAssertEqual(bound.port, port)
        XCTAssertTrue(isListening(port: port))
        let second = TestServer(statusRouter())
        do {
            try await second.server.start(listen: .loopback(port: port))
            XCTFail("a second server bound a port in use")
        } catch {
            XCTAssertEqual(error.reason, .addressInUse)
            XCTAssertTrue(error.description.hasPrefix("cannot listen on 127.0.0.1:\(port): the port is already in use"), error.description)
            XCTAssertTrue(error.description.contains("--listen ADDR:PORT or [http] listen"), error.description)
        }
        XCTAssertNil(second.server.address)

        // Starting twice is refused; stopping frees the port for the next server.
        do {
            try await first.server.start(listen: .loopback(port: 0))
            XCTFail("started twice")
        } catch {
            XCTAssertEqual(error.reason, .alreadyRunning)
        }
        await first.stop()
        XCTAssertFalse(isListening(port: port))
        let again = try await second.server.start(listen: .loopback(port: port))
        XCTAssertEqual(again.port, port)
        do {
            let value = try await curl(["http://127.0.0.1:\(port)/ok"]).status
            XCTAssertEqual(value, 200)
        }
        await second.stop()

        // An address this machine does not have.
        let foreign = TestServer(statusRouter())
        let foreignAddress = try ListenAddress(parsing: "192.0.2.1:0")
        do {
            try await foreign.server.start(listen: foreignAddress)
            XCTFail("bound a foreign address")
        } catch {
            XCTAssertEqual(error.reason, .addressNotAvailable, error.description)
        }
        await foreign.stop()
    }

    func testIPv6Loopback() async throws {
        let t = TestServer(statusRouter())
        let bound = try await t.server.start(listen: try ListenAddress(parsing: "[::1]:0"))
        addTeardownBlock { await t.stop() }
        XCTAssertEqual(bound.host, "::1")
        do {
            let value = try await curl(["-g", "http://\(bound)/ok"]).status
            XCTAssertEqual(value, 200)
        }
    }

    /// Requests run concurrently: each handler waits until all of them are in.
    /// Served one at a time, none would ever return 200.
    func testConcurrentRequests() async throws {
        let count = 12
        let inside = Mutex(0)
        var router = Router()
        router.get("/together") { _ in
            inside.withLock { $0 += 1 }
            // Each handler waits for the others to be inside with it.
            guard await eventually("\(count) requests inside together", { inside.withLock { $0 } >= count }) else {
                return .error(503, "only \(inside.withLock { $0 }) requests arrived together")
            }
            return .json(["together": count])
        }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }

        // Half through curl, half through URLSession.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<count {
                if i % 2 == 0 {
                    group.addTask { try await curl([s.url("/together")]).status }
                } else {
                    group.addTask {
                        let (_, response) = try await URLSession.shared.data(from: URL(string: s.url("/together"))!)
                        return (response as! HTTPURLResponse).statusCode
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: count))
        await eventually("every exchange ended") { s.server.activeExchanges == 0 }
    }

    /// A client that hangs up while its handler runs cancels the handler's task.
    func testClientDisconnectCancelsTheHandler() async throws {
        let started = Mutex(false)
        let cancelled = Mutex(false)
        var router = Router()
        router.post("/slow") { _ in
            started.withLock { $0 = true }
            do {
                try await Task.sleep(for: .seconds(60))  // a handler that runs until cancelled
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            return .text("too late")
        }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }

        let client = try ChildProcess("/usr/bin/curl", ["-sS", "-X", "POST", s.url("/slow")])
        await eventually("the handler started") { started.withLock { $0 } }
        XCTAssertEqual(s.server.activeExchanges, 1)
        client.terminate()
        _ = await client.wait()
        await eventually("the handler was cancelled") { cancelled.withLock { $0 } }
        await eventually("the exchange ended") { s.server.activeExchanges == 0 }
        // The server still serves.
        do {
            let value = try await curl(["-X", "POST", "--max-time", "1", s.url("/slow")]).exitCode
            XCTAssertEqual(value, 28, "curl timed out as expected")
        }
    }

    /// Stopping closes the port, drops clients, cancels handlers and streams, and
    /// leaves no file descriptor or thread behind, cycle after cycle.
    func testStopReleasesThePortAndLeaksNothing() async throws {
        let channel = EventChannel(heartbeat: .seconds(60))
        var router = statusRouter()
        router.get("/events") { _ in channel.response() }
        router.get("/forever") { _ in
            try await Task.sleep(for: .seconds(3600))  // a handler that never answers
            return .text("never")
        }

        func cycle() async throws {
            let s = try await TestServer(router).start()
            let ok = try await curl([s.url("/ok")])
            XCTAssertEqual(ok.status, 200, "curl exit \(ok.exitCode): \(ok.stderr)")
            let stream = try ChildProcess("/usr/bin/curl", ["-sS", "-N", s.url("/events")])
            let hanging = try ChildProcess("/usr/bin/curl", ["-sS", s.url("/forever")])
            await eventually("a subscriber and a hanging request") {
                channel.subscriberCount == 1 && s.server.activeExchanges == 2
            }
            let port = s.address.port
            await s.stop()
            XCTAssertFalse(isListening(port: port), "the port \(port) is released")
            // Both clients see their connection closed and exit.
            _ = await stream.wait()
            _ = await hanging.wait()
            XCTAssertEqual(s.server.activeExchanges, 0)
            await eventually("the subscriber left") { channel.subscriberCount == 0 }
        }

        try await cycle()  // warm up: the cooperative pool, URL caches, GLib's type system
        try await Task.sleep(for: .milliseconds(200))  // what the warm-up left winds down before the baseline (a leak grows per cycle)
        let fds = openFileDescriptorTargets()
        let threads = ownThreadNames()
        for _ in 0..<4 { try await cycle() }
        // Whatever else runs in this process (what earlier tests left to wind down, the
        // cooperative pool growing) may hold a descriptor or a thread for a while, also just
        // after the count came back; a leak holds one per cycle for good. So the count coming
        // back is the check, once (a second reading would race with those).
        await eventually("file descriptors return to \(fds.count); opened and not closed: "
                         + "\(added(openFileDescriptorTargets(), to: fds))") { openFileDescriptors() <= fds.count }
        await eventually("threads return to \(threads.count); left behind: \(added(ownThreadNames(), to: threads))") {
            ownThreadCount() <= threads.count
        }
    }
}
