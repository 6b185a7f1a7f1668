import Foundation
import GStreamer
import PlumbTestSupport
import XCTest

/// The gst-rtsp-server wrapper, read by real clients (ffprobe, rtspsrc).
final class RTSPServerTests: XCTestCase {
    let launch = "( videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=15/1 "
        + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! rtph264pay name=pay0 pt=96 config-interval=-1 )"

    private func serve(credentials: RTSPServer.Credentials? = nil) throws -> (RTSPServer, Int) {
        let loop = MainContextThread(name: "rtsp-test")
        let server = try RTSPServer(address: "127.0.0.1", port: 0)
        server.mount(path: "/test", launch: launch, credentials: credentials)
        let port = try server.start(on: loop.context)
        addTeardownBlock {
            server.stop()
            loop.stop()
        }
        return (server, port)
    }

    func testFFprobeReadsTheStream() throws {
        let (_, port) = try serve()
        XCTAssertGreaterThan(port, 0)
        let (probe, err) = try Probe.live("rtsp://127.0.0.1:\(port)/test")
        let p = try XCTUnwrap(probe, err)
        XCTAssertEqual(p.codec, "h264")
        XCTAssertEqual(p.width, 320)
        XCTAssertEqual(p.height, 240)
    }

    func testConcurrentClientsAreCountedAndEachGetsPictures() throws {
        let (server, port) = try serve()
        let plays = Counter()
        server.onPlay = { plays.increment() }
        var clients: [(Process, Pipe, Pipe)] = []
        for _ in 0..<3 {
            clients.append(try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
                "rtspsrc", "location=rtsp://127.0.0.1:\(port)/test", "protocols=tcp", "latency=0",
                "!", "rtph264depay", "!", "avdec_h264", "!", "fakesink", "num-buffers=10", "sync=false",
            ]))
        }
        // Wait until all three are connected at the same time.
        let deadline = Date().addingTimeInterval(20)
        while server.clientCount < 3 && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(server.clientCount, 3)
        for (p, o, e) in clients {
            let r = PlumbProcess.finish(p, o, e, timeout: 30)
            // EOS after 10 decoded frames is the proof; the teardown after it may race the
            // server's own close and make gst-launch report a write error on the way out.
            XCTAssertTrue(r.stdout.contains("Got EOS from element"), "a client did not get 10 decoded frames: \(r.stdout) \(r.stderr)")
        }
        XCTAssertEqual(plays.value, 3, "one PLAY per client")
        let gone = Date().addingTimeInterval(10)
        while server.clientCount > 0 && Date() < gone { usleep(50_000) }
        XCTAssertEqual(server.clientCount, 0)
    }

    func testBasicAuthentication() throws {
        let (_, port) = try serve(credentials: .init(method: .basic, user: "viewer", password: "s3cret"))
        let (denied, deniedErr) = try Probe.live("rtsp://127.0.0.1:\(port)/test")
        XCTAssertNil(denied)
        XCTAssertTrue(deniedErr.contains("401"), deniedErr)
        let (wrong, _) = try Probe.live("rtsp://viewer:nope@127.0.0.1:\(port)/test")
        XCTAssertNil(wrong)
        let (ok, err) = try Probe.live("rtsp://viewer:s3cret@127.0.0.1:\(port)/test")
        XCTAssertEqual(ok?.width, 320, err)
    }

    func testDigestAuthentication() throws {
        let (_, port) = try serve(credentials: .init(method: .digest, user: "viewer", password: "s3cret"))
        let (denied, deniedErr) = try Probe.live("rtsp://127.0.0.1:\(port)/test")
        XCTAssertNil(denied)
        XCTAssertTrue(deniedErr.contains("401"), deniedErr)
        let (ok, err) = try Probe.live("rtsp://viewer:s3cret@127.0.0.1:\(port)/test")
        XCTAssertEqual(ok?.width, 320, err)
    }

    func testStopReleasesThePortAndABusyPortIsAnError() throws {
        let loop = MainContextThread()
        defer { loop.stop() }
        let first = try RTSPServer(address: "127.0.0.1", port: 0)
        first.mount(path: "/test", launch: launch)
        let port = try first.start(on: loop.context)
        let second = try RTSPServer(address: "127.0.0.1", port: port)
        XCTAssertThrowsError(try second.start(on: loop.context)) { error in
            XCTAssertTrue("\(error)".contains("\(port)"), "\(error)")
        }
        first.stop()
        let third = try RTSPServer(address: "127.0.0.1", port: port)
        XCTAssertEqual(try third.start(on: loop.context), port)
        third.stop()
    }
}
