import PlumbTestSupport
import Foundation
import GLib
import Soup
import XCTest

/// Server-sent events and file downloads: bodies that are not in memory at once.
final class StreamingTests: XCTestCase {
    func testServerSentEventsReachCurlAndADisconnectIsCleanedUp() async throws {
        let channel = EventChannel(heartbeat: .seconds(60))
        var router = Router()
        router.get("/events") { _ in channel.response() }
        router.get("/ok") { _ in .text("ok") }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }
        let dir = try temporaryDirectory(self, "plumb-soup")
        let output = dir.appendingPathComponent("events")
        let headers = dir.appendingPathComponent("headers").path

        let client = try ChildProcess("/usr/bin/curl", ["-sS", "-N", "-D", headers, s.url("/events")], stdout: output)
        await eventually("curl subscribed") { channel.subscriberCount == 1 }
        channel.publish(ServerSentEvent(event: "orientation", data: #"{"angle":90}"#, id: "1"))
        channel.publish(try ServerSentEvent(event: "recording", json: ["state": "started", "file": "a.mp4"], id: "2"))
        channel.publish(ServerSentEvent(data: "two\nlines"))
        let expected = """
            retry: 3000

            id: 1
            event: orientation
            data: {"angle":90}

            id: 2
            event: recording
            data: {"file":"a.mp4","state":"started"}

            data: two
            data: lines


            """
        await eventually("curl received the three events") {
            (try? String(contentsOf: output, encoding: .utf8)) == expected
        }
        XCTAssertEqual(try String(contentsOf: output, encoding: .utf8), expected)
        let h = parseHeaders(try String(contentsOfFile: headers, encoding: .utf8))
        XCTAssertEqual(h["Content-Type"], "text/event-stream")
        XCTAssertEqual(h["Transfer-Encoding"], "chunked")
        XCTAssertEqual(h["Cache-Control"], "no-cache")
        XCTAssertEqual(s.server.activeExchanges, 1)

        // The client goes away while no event is pending: noticed at once, without a write.
        client.terminate()
        _ = await client.wait()
        await eventually("the subscriber left") { channel.subscriberCount == 0 }
        await eventually("the exchange ended") { s.server.activeExchanges == 0 }
        // Publishing to nobody is fine; the server still serves.
        channel.publish(ServerSentEvent(data: "nobody listens"))
        let ok = try await curl([s.url("/ok")])
        XCTAssertEqual(ok.text, "ok")
    }

    func testHeartbeatsAndManySubscribers() async throws {
        let channel = EventChannel(heartbeat: .milliseconds(100))
        var router = Router()
        router.get("/events") { _ in channel.response() }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }
        let dir = try temporaryDirectory(self, "plumb-soup")

        var clients: [(ChildProcess, URL)] = []
        for i in 0..<5 {
            let out = dir.appendingPathComponent("events\(i)")
            clients.append((try ChildProcess("/usr/bin/curl", ["-sS", "-N", s.url("/events")], stdout: out), out))
        }
        await eventually("five subscribers") { channel.subscriberCount == 5 }
        channel.publish(ServerSentEvent(event: "error", data: "camera lost"))
        for (_, out) in clients {
            await eventually("heartbeats and the event") {
                let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
                return text.contains("event: error\ndata: camera lost\n\n") && text.components(separatedBy: ":\n\n").count > 2
            }
        }
        // Ending the channel completes every response: curl exits 0 on its own.
        channel.finishAll()
        for (client, _) in clients {
            let status = await client.wait()
            XCTAssertEqual(status, 0)
        }
        await eventually("every exchange ended") { s.server.activeExchanges == 0 }
    }

    func testLargeFileDownloadIsStreamedIntact() async throws {
        let dir = try temporaryDirectory(self, "plumb-soup")
        let path = dir.appendingPathComponent("big.bin").path
        // 48 MiB of a pattern that would show any reordered or repeated chunk.
        let size = 48 << 20
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var block = Data(count: 1 << 20)
        for mb in 0..<(size >> 20) {
            block.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt32.self)
                for i in 0..<words.count { words[i] = UInt32(truncatingIfNeeded: mb &* 1_000_003 &+ i) }
            }
            try writer.write(contentsOf: block)
        }
        try writer.close()

        var router = Router()
        router.get("/files/{name}") { request in
            .file(dir.appendingPathComponent(request.parameters["name"]!).path, contentType: "application/octet-stream")
        }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }

        // The peak resident size must not grow by the file's size: reset the
        // high-water mark (Linux: write 5 to clear_refs), download, read it back.
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let baseline = peakResidentBytes()
        let copy = dir.appendingPathComponent("copy.bin").path
        let r = try await curl([s.url("/files/big.bin")], saveBodyTo: copy)
        let growth = peakResidentBytes() - baseline
        XCTAssertEqual(r.status, 200, r.stderr)
        XCTAssertEqual(r.headers["Content-Length"], "\(size)")
        XCTAssertEqual(r.headers["Content-Type"], "application/octet-stream")
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: path, andPath: copy), "the download is byte for byte the file")
        XCTAssertLessThan(growth, size / 3, "peak memory grew by \(growth >> 20) MiB for a \(size >> 20) MiB file")

        // HEAD: the length without the body.
        let head = try await curl(["-I", s.url("/files/big.bin")])
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], "\(size)")
        XCTAssertLessThan(head.body.count, 1000)

        // A missing file is a JSON 404, and so is a directory.
        let missing = try await curl([s.url("/files/nope.bin")])
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try missing.json()["error"] as? String, "no such file: nope.bin")
        let directory = try await curl([s.url("/files/..")])
        XCTAssertEqual(directory.status, 404)

        // An empty file is an empty 200.
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("empty").path, contents: Data())
        let empty = try await curl([s.url("/files/empty")])
        XCTAssertEqual(empty.status, 200)
        XCTAssertEqual(empty.headers["Content-Length"], "0")
        XCTAssertEqual(empty.body.count, 0)
        await eventually("every exchange ended") { s.server.activeExchanges == 0 }
    }

    /// A client that stops reading a download holds only the server's socket
    /// buffers, and hanging up mid-download ends the exchange.
    func testAbandonedDownloadEndsTheExchange() async throws {
        let dir = try temporaryDirectory(self, "plumb-soup")
        let path = dir.appendingPathComponent("big.bin").path
        try Data(count: 32 << 20).write(to: URL(fileURLWithPath: path))
        var router = Router()
        router.get("/big") { _ in .file(path) }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }

        // 256 KiB/s: the 32 MiB file would take two minutes.
        let client = try ChildProcess("/usr/bin/curl", ["-sS", "--limit-rate", "256k", "-o", dir.appendingPathComponent("partial").path, s.url("/big")])
        await eventually("the download started") {
            ((try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("partial").path)[.size] as? Int) ?? 0) > 100_000
        }
        XCTAssertEqual(s.server.activeExchanges, 1)
        client.terminate()
        _ = await client.wait()
        await eventually("the exchange ended") { s.server.activeExchanges == 0 }
    }

    private func peakResidentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            return kb * 1024
        }
        return 0
    }
}
