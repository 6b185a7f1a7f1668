import Foundation
import GStreamer
import GStreamerRTSP
import PlumbTestSupport
import XCTest
import GLib

/// `[publish] url`: the preview pushed to a RECORD server the test runs (gst-rtsp-server,
/// decoding what it receives with avdec_h264), and pushed again after that server restarts
/// on the same port — while the capture and the local preview carry on.
final class ServePublishTests: XCTestCase {
    /// A gst-rtsp-server RECORD mount at /live that counts the pictures it decodes.
    final class RecordServer: Sendable {
        /// Bumped by a streaming thread of the server's media.
        final class Counter: @unchecked Sendable {  // `value` is only touched under `lock`
            private let lock = NSLock()
            private var count = 0
            func increment() { lock.withLock { count += 1 } }
            var value: Int { lock.withLock { count } }
        }

        private let server: RTSPServer
        private let loop = MainContextThread(name: "serve-test-record-server")
        private let counter = Counter()
        let port: Int

        init(port: Int) throws {
            server = try RTSPServer(address: "127.0.0.1", port: port)
            let launch = "( rtph264depay name=depay0 ! h264parse ! avdec_h264 ! fakesink name=frames sync=false )"
            let counter = self.counter
            server.mount(path: "/live", launch: launch, mode: .record, shared: false) { bin in
                bin.element(named: "frames")?.staticPad("sink")?.addProbe(.buffer) { _ in
                    counter.increment()
                    return .ok
                }
                return nil
            }
            self.port = try server.start(on: loop.context)
        }

        var decodedFrames: Int { counter.value }

        func stop() {
            server.stop()
            loop.stop()
        }
    }

    func testPublishesToARecordServerAndRecoversAfterItRestarts() throws {
        // A held port: between the first server's stop and the second's start nothing else takes it.
        let port = Int(try ReservedPort(self).port)
        var first: RecordServer? = try RecordServer(port: port)
        let url = "rtsp://127.0.0.1:\(port)/live"
        let serve = try ServeProcess(self, ["publish": ["url": url]])
        let events = try EventTap(serve, self)

        eventually("the RECORD server decoded \(first?.decodedFrames ?? 0) frames: \(serve.log)", timeout: .seconds(30)) { (first?.decodedFrames ?? 0) >= 30 }
        XCTAssertTrue(serve.log.contains("publishing to \(url)"), serve.log)
        XCTAssertEqual(try serve.curl("GET", "/status").json()["publish"] as? String, "connected")

        // The server goes away: the publisher says so and waits; capture goes on.
        first?.stop()
        first = nil
        eventually(events.raw, timeout: .seconds(30)) { events.named("error").contains { ($0.data["message"] as? String ?? "").contains("publishing") } }
        // The rate is measured over the last seconds: wait for a measurement.
        eventually("an fps in /status", timeout: .seconds(10)) { ((try? serve.curl("GET", "/status").json())?["fps"] as? Double) != nil }
        let status = try serve.curl("GET", "/status").json()
        XCTAssertTrue((status["publish"] as? String ?? "").hasPrefix("waiting") || (status["publish"] as? String ?? "").hasPrefix("connecting"),
                      "\(status)")
        XCTAssertEqual(status["fps"] as? Double ?? 0, ServeProcess.fps, accuracy: 3, "capture must not notice: \(status)")

        // It comes back on the same port: the publisher reconnects by itself.
        let second = try RecordServer(port: port)
        defer { second.stop() }
        eventually("the restarted server decoded \(second.decodedFrames) frames: \(serve.log)", timeout: .seconds(60)) { second.decodedFrames >= 30 }
        eventually("/status to say publish connected", timeout: .seconds(10)) { (try? serve.curl("GET", "/status").json()["publish"] as? String) == "connected" }

        // The local preview served throughout.
        let viewer = try RTSPClient(serve.rtsp, frames: 30)
        let viewed = viewer.finish(timeout: 30)
        XCTAssertTrue(RTSPClient.gotEveryFrame(viewed), viewed.stderr)

        let (code, log) = serve.stop(SIGTERM)
        XCTAssertEqual(code, 0, log)
    }
}
