import PlumbTestSupport
import Foundation
import GLib
import Soup
import XCTest

/// Every connection the server is done with is closed and freed: after thousands of
/// requests of every kind the process holds the descriptors and memory it held before.
final class ConnectionLifetimeTests: XCTestCase {
    private struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    private static func expect(_ condition: Bool, _ what: @autoclosure () -> String) throws {
        if !condition { throw Mismatch(description: what()) }
    }

    func testThousandsOfRequestsOfEveryKindLeaveNoDescriptorOrMemoryBehind() async throws {
        let dir = try temporaryDirectory(self, "plumb-soup")
        let fileSize = 200_000
        try Data((0..<fileSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: dir.appendingPathComponent("clip.mp4").path))
        let channel = EventChannel(heartbeat: .seconds(60))
        var router = Router()
        router.get("/status") { _ in .json(["state": "running"]) }
        router.post("/photo") { request in .bytes(request.body, contentType: "image/jpeg") }
        router.get("/recordings/{name}") { request in .file(dir.appendingPathComponent(request.parameters["name"]!).path, contentType: "video/mp4") }
        router.get("/events") { _ in channel.response() }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }
        let port = s.address.port
        // Photo-sized: a response body kept after its request would show in the RSS.
        let photo = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        /// One round: 9 requests on 5 connections, each kind the API sees.
        let round: @Sendable () throws -> Void = {
            // Keep-alive: several requests on one connection, then the client hangs up.
            let c = try RawConnection(port: port)
            for _ in 0..<3 {
                let r = try c.request("GET", "/status")
                try Self.expect(r.status == 200 && r.text == #"{"state":"running"}"#, "GET /status: \(r.status) \(r.text)")
            }
            let missing = try c.request("GET", "/nothing")
            try Self.expect(missing.status == 404, "GET /nothing: \(missing.status)")
            let posted = try c.request("POST", "/photo", body: photo)
            try Self.expect(posted.status == 200 && posted.body == photo, "POST /photo: \(posted.status), \(posted.body.count) bytes")
            let file = try c.request("GET", "/recordings/clip.mp4")
            try Self.expect(file.status == 200 && file.body.count == fileSize, "download: \(file.status), \(file.body.count) bytes")
            c.close()

            // An event stream the client drops after the first bytes.
            let events = try RawConnection(port: port)
            try events.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try Self.expect(try events.readHead().status == 200, "GET /events")
            try events.readUntil(Data("retry: 3000\n\n".utf8))
            events.close()

            // Half a request, then the client goes away.
            let half = try RawConnection(port: port)
            try half.send("GET /status HTTP/1.1\r\nHost: 127.0")
            half.close()

            // Connection: close, and HTTP/1.0.
            let closing = try RawConnection(port: port)
            try Self.expect(try closing.request("GET", "/status", close: true).status == 200, "Connection: close")
            try Self.expect(closing.waitForClose(), "the server closes after Connection: close")
            let old = try RawConnection(port: port)
            try old.send("GET /status HTTP/1.0\r\n\r\n")
            try Self.expect(try old.readResponse().status == 200, "HTTP/1.0")
        }

        // Warm up (the cooperative pool, GLib's types, malloc's arenas), then measure.
        try await onThread { for _ in 0..<50 { try round() } }
        await eventually("the warm-up's exchanges ended") { s.server.activeExchanges == 0 && channel.subscriberCount == 0 }
        try await Task.sleep(for: .milliseconds(300))  // what the warm-up left winds down before the baseline (a leak grows per round)
        let fds = openFileDescriptors()
        let rss = residentBytes()

        let rounds = 400
        let clock = ContinuousClock()
        let started = clock.now
        try await onThread { for _ in 0..<rounds { try round() } }
        let elapsed = clock.now - started

        await eventually("every exchange ended") { s.server.activeExchanges == 0 && channel.subscriberCount == 0 }
        // The server closes what the clients left at once: no timeout is involved.
        await eventually("descriptors return to \(fds) (+2)") { openFileDescriptors() <= fds + 2 }
        let fdsAfter = openFileDescriptors()
        let rssAfter = residentBytes()
        print("\(rounds * 9) requests on \(rounds * 5) connections in \(elapsed): descriptors \(fds) -> \(fdsAfter), "
              + "RSS \(rss >> 20) -> \(rssAfter >> 20) MiB")
        XCTAssertLessThanOrEqual(fdsAfter, fds + 2, "descriptors leaked")
        // 400 photos of 256 KiB went through: one kept per request would be 100 MiB.
        XCTAssertLessThan(rssAfter - rss, 8 << 20, "RSS grew by \((rssAfter - rss) >> 10) KiB")
    }

    /// Slowloris: connections that send nothing, half a head, half a body, trickle a
    /// head line by line, or stay idle after a response are all closed once the idle
    /// timeout passes, and not before.
    func testIdleAndHalfSentConnectionsAreClosedAfterTheIdleTimeout() async throws {
        var router = Router()
        router.get("/status") { _ in .json(["state": "running"]) }
        router.post("/upload") { request in .json(["bytes": request.body.count]) }
        var options = HTTPServer.Options()
        options.idleTimeout = .seconds(1)
        let s = try await TestServer(router, options: options).start()
        addTeardownBlock { await s.stop() }
        let port = s.address.port
        do {
            let value = try await curl([s.url("/status")]).status  // warm up
            XCTAssertEqual(value, 200)
        }
        await eventually("the warm-up connection closed") { s.server.openConnections == 0 }
        let fds = openFileDescriptors()

        let kinds = ["silent", "half head", "half body", "idle after a response", "trickling"]
        let perKind = 40
        let results = try await withThrowingTaskGroup(of: (String, Bool, Duration).self) { group in
            for kind in kinds {
                for _ in 0..<perKind {
                    group.addTask {
                        try await onThread {
                            let clock = ContinuousClock()
                            let opened = clock.now
                            let c = try RawConnection(port: port, timeout: 8)
                            switch kind {
                            case "half head":
                                try c.send("GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */")
                            case "half body":
                                try c.send("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789")
                            case "idle after a response":
                                let r = try c.request("GET", "/status")
                                try Self.expect(r.status == 200, "GET /status: \(r.status)")
                            case "trickling":
                                // A header line every 100 ms, for as long as the server takes them.
                                try c.send("GET /status HTTP/1.1\r\n")
                                var line = 0
                                while clock.now - opened < .seconds(8), c.isOpenForWriting() {
                                    try? c.send("X-Line-\(line): a\r\n")
                                    line += 1
                                    usleep(100_000)  // a slow client: one header line every 100 ms
                                }
                            default:
                                break
                            }
                            let closed = c.waitForClose()
                            return (kind, closed, clock.now - opened)
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(results.count, kinds.count * perKind)
        for (kind, closed, after) in results {
            XCTAssertTrue(closed, "a \(kind) connection was still open after \(after)")
            XCTAssertGreaterThanOrEqual(after, .milliseconds(950), "a \(kind) connection was closed before the timeout")
        }
        await eventually("the server holds no connection") { s.server.openConnections == 0 }
        // Coming back is the check (a second reading would race with other work's descriptors).
        await eventually("descriptors return to \(fds)") { openFileDescriptors() <= fds }
        // And it still serves.
        let ok = try await onThread { try RawConnection(port: port).request("GET", "/status").status }
        XCTAssertEqual(ok, 200)
    }

    /// A response the client does not take is dropped after the send timeout; a slow
    /// but steady reader is not.
    func testAResponseTheClientStopsReadingIsDroppedAfterTheSendTimeout() async throws {
        let dir = try temporaryDirectory(self, "plumb-soup")
        try Data(count: 16 << 20).write(to: URL(fileURLWithPath: dir.appendingPathComponent("big.bin").path))
        var router = Router()
        router.get("/big") { _ in .file(dir.appendingPathComponent("big.bin").path) }
        var options = HTTPServer.Options()
        options.sendTimeout = .seconds(1)
        let s = try await TestServer(router, options: options).start()
        addTeardownBlock { await s.stop() }
        let port = s.address.port

        let (stalled, steady) = try await onThread {
            // Reads the head, then nothing: the socket buffers fill and the server stalls.
            let c = try RawConnection(port: port, timeout: 10)
            var size = Int32(16 << 10)
            setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            try c.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try c.readHead()
            usleep(3_000_000)  // the thing tested: a client that stops reading this long
            // Then reads on: the body ends early (the server dropped it).
            var received = c.takeBuffered().count
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = recv(c.fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                received += n
            }
            // A reader that takes 1 MiB every 300 ms gets it all.
            let d = try RawConnection(port: port, timeout: 10)
            try d.send("GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try d.readHead()
            // Body bytes that came with the head count too.
            var total = d.takeBuffered().count
            while total < 16 << 20 {
                var chunk = 0
                while chunk < 1 << 20 && total < 16 << 20 {
                    let n = recv(d.fd, &buffer, min(buffer.count, (1 << 20) - chunk), 0)
                    if n <= 0 { break }
                    chunk += n
                    total += n
                }
                if chunk == 0 { break }
                usleep(300_000)  // a slow reader, paced
            }
            return (received, total)
        }
        XCTAssertLessThan(stalled, 16 << 20, "the stalled download was not dropped")
        XCTAssertEqual(steady, 16 << 20, "the steady reader was cut off after \(steady) bytes")
        await eventually("the server holds no exchange") { s.server.activeExchanges == 0 }
    }
}
