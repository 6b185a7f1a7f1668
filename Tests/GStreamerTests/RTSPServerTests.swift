import Foundation
import GStreamer
import GStreamerRTSP
import PlumbTestSupport
import XCTest
import GLib

/// The gst-rtsp-server wrapper, read by real clients (ffprobe, rtspsrc).
final class RTSPServerTests: XCTestCase {
    /// SPS/PPS in front of every keyframe from the parser, none added by the payloader:
    /// rtph264pay's own (config-interval=-1) would go in front of each of x264's slices
    /// and split every keyframe in two for ffmpeg (see RTSPPreview.launch).
    let launch = "( videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=15/1 "
        + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! h264parse config-interval=-1 "
        + "! rtph264pay name=pay0 pt=96 config-interval=0 )"

    private func serve(credentials: RTSPServer.Credentials? = nil, sessionTimeout: Duration? = nil) throws
        -> (RTSPServer, Int)
    {
        let loop = MainContextThread(name: "rtsp-test")
        let server = try RTSPServer(address: "127.0.0.1", port: 0)
        server.sessionTimeout = sessionTimeout
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
        eventually("three clients at once (\(server.clientCount))") { server.clientCount == 3 }
        for (p, o, e) in clients {
            let r = PlumbProcess.finish(p, o, e, timeout: 30)
            // EOS after 10 decoded frames is the proof; the teardown after it may race the
            // server's own close and make gst-launch report a write error on the way out.
            XCTAssertTrue(r.stdout.contains("Got EOS from element"), "a client did not get 10 decoded frames: \(r.stdout) \(r.stderr)")
        }
        XCTAssertEqual(plays.value, 3, "one PLAY per client")
        eventually("no client left (\(server.clientCount))") { server.clientCount == 0 }
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

    /// A consumer over UDP that vanishes without TEARDOWN — frozen here: no RTCP, no
    /// request, its connection left open — was counted for ever: gst-rtsp-server expires no
    /// session unless asked to, and keeps the connection after. Now it leaves with its
    /// session's timeout (plus the 5 s gst-rtsp-server allows on top), while a consumer
    /// whose RTCP reports keep coming stays.
    func testAVanishedUDPConsumerLeavesWithItsSessionTimeout() throws {
        let (server, port) = try serve(sessionTimeout: .seconds(12))
        let plays = Counter()
        server.onPlay = { plays.increment() }
        let url = "rtsp://127.0.0.1:\(port)/test"
        // 20 s of the 15 fps test stream: longer than the timeout.
        let healthy = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "rtspsrc", "location=\(url)", "protocols=udp", "latency=0", "!", "rtph264depay", "!", "avdec_h264",
            "!", "fakesink", "num-buffers=300", "sync=false",
        ])
        let frozen = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "rtspsrc", "location=\(url)", "protocols=udp", "latency=0", "!", "fakesink", "sync=false",
        ])
        defer {
            kill(frozen.0.processIdentifier, SIGKILL)
            _ = PlumbProcess.finish(frozen.0, frozen.1, frozen.2, timeout: 10)
        }
        eventually("both consumers connected (\(server.clientCount))") { server.clientCount == 2 }
        // Frozen once playing (its session set up and started), not half-way through its requests.
        eventually("both consumers playing (\(plays.value) PLAY)") { plays.value == 2 }
        kill(frozen.0.processIdentifier, SIGSTOP)
        let stopped = Date()
        eventually("the frozen consumer to leave (\(Date().timeIntervalSince(stopped)) s on)", timeout: .seconds(12 + 5 + 10),
                   every: .milliseconds(100)) { server.clientCount == 1 }
        print("frozen UDP consumer gone \(String(format: "%.1f", Date().timeIntervalSince(stopped))) s after it froze "
              + "(session timeout 12 s + 5 s from its last RTCP report)")
        let r = PlumbProcess.finish(healthy.0, healthy.1, healthy.2, timeout: 40)
        XCTAssertTrue(r.stdout.contains("Got EOS from element"), "the healthy UDP consumer was cut short: \(r.stderr)")
    }

    /// On a port held for the test (ReservedPort), not one found free and closed: between the
    /// first server's stop and the third's start nothing else can take it, even with outgoing
    /// connections busy in the ephemeral range.
    func testStopReleasesThePortAndABusyPortIsAnError() throws {
        let loop = MainContextThread()
        defer { loop.stop() }
        let reserved = try ReservedPort(self)
        let first = try RTSPServer(address: "127.0.0.1", port: Int(reserved.port))
        first.mount(path: "/test", launch: launch)
        let port = try first.start(on: loop.context)
        XCTAssertEqual(port, Int(reserved.port))
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
