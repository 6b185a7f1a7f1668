import PlumbTestSupport
import Foundation
import GLib
import Soup
import Synchronization
import XCTest

/// `HTTPResponse.onFinished`: the owner of a response learns whether the client got all
/// of it (what `plumb serve` needs to keep a clip nobody received), once per exchange.
final class DeliveryTests: XCTestCase {
    /// The outcomes reported, by request path.
    final class Outcomes: Sendable {
        private let reported = Mutex<[String: [Bool]]>([:])
        func add(_ path: String, _ delivered: Bool) { reported.withLock { $0[path, default: []].append(delivered) } }
        subscript(path: String) -> [Bool] { reported.withLock { $0[path] ?? [] } }
    }

    func testOnFinishedSaysWhetherTheClientGotTheWholeResponse() async throws {
        let dir = try temporaryDirectory(self, "plumb-soup")
        let small = dir.appendingPathComponent("small.bin").path, big = dir.appendingPathComponent("big.bin").path
        try Data(repeating: 7, count: 300_000).write(to: URL(fileURLWithPath: small))
        try Data(count: 32 << 20).write(to: URL(fileURLWithPath: big))
        let outcomes = Outcomes()
        var router = Router()
        for (route, path) in [("/small", small), ("/big", big)] {
            router.get(route) { _ in
                var response = HTTPResponse.file(path)
                response.onFinished = { outcomes.add(route, $0) }
                return response
            }
        }
        router.get("/bytes") { _ in
            var response = HTTPResponse.text("hello")
            response.onFinished = { outcomes.add("/bytes", $0) }
            return response
        }
        router.get("/slow") { _ in
            // The client leaves before the answer exists (which this handler makes anyway).
            try? await Task.sleep(for: .seconds(3))  // a handler slower than its client
            var response = HTTPResponse.text("too late")
            response.onFinished = { outcomes.add("/slow", $0) }
            return response
        }
        let s = try await TestServer(router).start()
        addTeardownBlock { await s.stop() }

        // Taken whole: true, once.
        let copy = dir.appendingPathComponent("copy.bin").path
        let whole = try await curl([s.url("/small")], saveBodyTo: copy)
        XCTAssertEqual(whole.status, 200, whole.stderr)
        await eventually("the small file's outcome") { outcomes["/small"] == [true] }
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: small, andPath: copy))
        let bytes = try await curl([s.url("/bytes")])
        XCTAssertEqual(bytes.text, "hello")
        await eventually("the bytes' outcome") { outcomes["/bytes"] == [true] }

        // Abandoned half-way (256 KiB/s of 32 MiB, then the client is killed): false, once.
        let client = try ChildProcess("/usr/bin/curl", ["-sS", "--limit-rate", "256k", "-o", dir.appendingPathComponent("partial").path, s.url("/big")])
        await eventually("the download started") {
            ((try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("partial").path)[.size] as? Int) ?? 0) > 100_000
        }
        XCTAssertEqual(outcomes["/big"], [], "nothing is reported while the body is being sent")
        client.terminate()
        _ = await client.wait()
        await eventually("the big file's outcome") { outcomes["/big"] == [false] }

        // The client gave up before the handler answered: false.
        let gaveUp = try await curl(["--max-time", "1", s.url("/slow")])
        XCTAssertNotEqual(gaveUp.exitCode, 0)
        await eventually("the slow answer's outcome", timeout: .seconds(10)) { outcomes["/slow"] == [false] }
        await eventually("every exchange ended") { s.server.activeExchanges == 0 }
    }
}
