import Foundation
import GStreamer
import GStreamerRTSP
import PlumbTestSupport
import XCTest
import GLib

/// Mounts that follow each media's life, and RECORD mounts, with real clients.
final class RTSPServerMediaTests: XCTestCase {
    /// Configured and gone media, counted from the hooks.
    final class MediaLog: @unchecked Sendable {  // every field is guarded by `lock`
        private let lock = NSLock()
        private var configured = 0
        private var gone = 0
        private var frames = 0
        var configuredCount: Int { lock.withLock { configured } }
        var goneCount: Int { lock.withLock { gone } }
        var frameCount: Int { lock.withLock { frames } }
        func didConfigure() { lock.withLock { configured += 1 } }
        func didGo() { lock.withLock { gone += 1 } }
        func didDecode() { lock.withLock { frames += 1 } }
    }

    /// A RECORD mount that decodes what it receives and counts the pictures.
    static let recordLaunch = "( rtph264depay name=depay0 ! h264parse ! avdec_h264 ! fakesink name=frames sync=false )"

    private func recordServer(port: Int = 0, log: MediaLog) throws -> (RTSPServer, MainContextThread, Int) {
        let loop = MainContextThread(name: "rtsp-record-test")
        let server = try RTSPServer(address: "127.0.0.1", port: port)
        server.mount(path: "/record", launch: Self.recordLaunch, mode: .record, shared: false) { bin in
            log.didConfigure()
            bin.element(named: "frames")?.staticPad("sink")?.addProbe(.buffer) { _ in
                log.didDecode()
                return .ok
            }
            return { log.didGo() }
        }
        let bound = try server.start(on: loop.context)
        addTeardownBlock {
            server.stop()
            loop.stop()
        }
        return (server, loop, bound)
    }

    func testRecordMountReceivesFramesFromRtspclientsink() throws {
        let log = MediaLog()
        let (server, _, port) = try recordServer(log: log)
        // An independent publisher: gst-launch's rtspclientsink, ANNOUNCE + RECORD. It runs
        // until stopped (at end of stream rtspclientsink sometimes never exits by itself).
        let (p, o, e) = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "-q", "videotestsrc", "is-live=true", "!",
            "video/x-raw,width=320,height=240,framerate=30/1", "!",
            "x264enc", "tune=zerolatency", "speed-preset=ultrafast", "key-int-max=15", "!", "h264parse", "!",
            "rtspclientsink", "location=rtsp://127.0.0.1:\(port)/record", "protocols=tcp",
        ])
        let received = eventually("45 frames decoded by the RECORD media (\(log.frameCount) so far)", timeout: .seconds(20)) {
            log.frameCount >= 45
        }
        p.terminate()
        let r = PlumbProcess.finish(p, o, e, timeout: 10)
        XCTAssertTrue(received, "the publisher said: \(r.stderr)")
        XCTAssertEqual(log.configuredCount, 1)
        // The publisher left: its media goes, and the hook says so once.
        eventually("media gone \(log.goneCount) times, \(server.clientCount) clients left", timeout: .seconds(10)) { log.goneCount == 1 && server.clientCount == 0 }
    }

    func testPlayMountHookSeesEachMediaComeAndGo() throws {
        let log = MediaLog()
        let loop = MainContextThread(name: "rtsp-media-test")
        let server = try RTSPServer(address: "127.0.0.1", port: 0)
        server.mount(path: "/test", launch: "( videotestsrc is-live=true ! video/x-raw,width=160,height=120 "
                     + "! x264enc tune=zerolatency ! rtph264pay name=pay0 pt=96 )", mode: .play, shared: true) { _ in
            log.didConfigure()
            return { log.didGo() }
        }
        let port = try server.start(on: loop.context)
        defer {
            server.stop()
            loop.stop()
        }
        for round in 1...2 {
            let (probe, err) = try Probe.live("rtsp://127.0.0.1:\(port)/test")
            XCTAssertEqual(probe?.width, 160, err)
            // The only client left: the shared media is unprepared before the next one comes.
            eventually("round \(round): gone \(log.goneCount)", timeout: .seconds(10)) { log.goneCount == round }
            XCTAssertEqual(log.configuredCount, round)
        }
    }

}
