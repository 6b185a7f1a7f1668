import Foundation
import PlumbTestSupport
import XCTest

/// WebRTC egress by WHEP (issue 13), from a non-browser client: aiortc viewers (PyPI, in
/// the test venv) POST non-trickle offers to a real `plumb serve` and decode what comes.
final class ServeWHEPTests: XCTestCase {
    /// One line of Tests/Scripts/whep_viewers.py per viewer.
    struct ViewerResult: Decodable, CustomStringConvertible {
        var viewer: Int
        var status: Int
        var frames: Int
        var fps: Double
        var width: Int?
        var height: Int?
        var first_frame_ms: Int?
        var deleted: Int?
        var error: String?
        var description: String {
            "viewer \(viewer): \(status) \(frames) frames, \(fps) fps, \(width ?? 0)x\(height ?? 0), first after "
                + "\(first_frame_ms.map(String.init) ?? "-") ms, DELETE \(deleted.map(String.init) ?? "-") \(error ?? "")"
        }
    }

    /// Runs `count` viewers for `seconds` against the daemon; their results.
    func viewers(_ serve: ServeProcess, count: Int, seconds: Int, keep: Bool = false) throws -> [ViewerResult] {
        let python = try TestVenv.ready()
        let result = try PlumbProcess.run(python, [TestVenv.script("whep_viewers.py").path, serve.http + "/whep",
                                                   String(count), String(seconds)] + (keep ? ["--keep"] : []),
                                          timeout: TimeInterval(seconds + 90))
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        return try lines.map { try JSONDecoder().decode(ViewerResult.self, from: Data($0.utf8)) }
    }

    func webrtcStatus(_ serve: ServeProcess) throws -> [String: Any] {
        try XCTUnwrap(try serve.curl("GET", "/status").json()["webrtc"] as? [String: Any])
    }

    /// 8 viewers for 20 s while recording: each gets the 640x480 video at about 30 fps
    /// (counted over its last 18 s, after connecting), and the recording loses no frame.
    func testEightViewersWhileRecordingEachGetThirtyFPS() throws {
        let serve = try ServeProcess(self, ["camera": ["size": "640x480"]])
        XCTAssertEqual(try serve.curl("POST", "/recording/start").status, 200)
        let results = try viewers(serve, count: 8, seconds: 20)
        XCTAssertEqual(results.count, 8)
        for r in results {
            XCTAssertEqual(r.status, 201, "\(r)")
            XCTAssertEqual(r.width, 640, "\(r)")
            XCTAssertEqual(r.height, 480, "\(r)")
            XCTAssertGreaterThanOrEqual(r.fps, 25, "\(r)")
            XCTAssertEqual(r.deleted, 204, "\(r)")
        }
        print("WHEP 8 viewers: " + results.map(\.description).joined(separator: "; "))
        let stop = try serve.curl("POST", "/recording/stop")
        XCTAssertEqual(stop.status, 200, stop.text)
        let name = try XCTUnwrap(try stop.json()["file"] as? String)
        let probe = try XCTUnwrap(try Probe.read(serve.folder.appendingPathComponent(name)))
        XCTAssertGreaterThan(probe.duration, 20)
        XCTAssertEqual(Double(probe.frames), probe.duration * ServeProcess.fps, accuracy: 1.5, "\(probe)")
        eventually("no viewers left", timeout: .seconds(10)) { (try? self.webrtcStatus(serve)["viewers"] as? Int) == 0 }
        let status = try webrtcStatus(serve)
        XCTAssertEqual(status["dropped"] as? Int, 0, "every viewer ended by its DELETE")
    }

    /// Viewers that come and go leave nothing running in the daemon: after a first round
    /// (which loads webrtcbin, libnice and the DTLS stack for good), four more rounds of
    /// three viewers each bring its open descriptors back to what they were (every ICE
    /// socket, DTLS pipe and timer closed) and its threads to within GLib's idle pool
    /// threads — a viewer whose pipeline or agent stayed alive would keep both.
    func testViewersThatComeAndGoLeaveNoDescriptorOrThreadBehind() throws {
        let serve = try ServeProcess(self)
        func viewersNow() -> Int { (try? webrtcStatus(serve)["viewers"] as? Int) ?? -1 }
        let pid = serve.pid
        @Sendable func count(_ what: String) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/\(what)").count) ?? -1
        }
        // Settled: two samples 2 s apart agree (threads of an idle pool end on their own).
        func settled(_ what: String, atMost limit: Int? = nil) -> Int {
            var last: Int?
            eventually("/proc/\(pid)/\(what) to settle (\(count(what)))", timeout: .seconds(30), every: .seconds(2)) {
                let now = count(what)
                defer { last = now }
                return now == last || (limit.map { now <= $0 } ?? false)
            }
            return count(what)
        }
        for r in try viewers(serve, count: 3, seconds: 3) { XCTAssertEqual(r.deleted, 204, "\(r)") }
        eventually("no viewers left: \(viewersNow())", timeout: .seconds(20)) { viewersNow() == 0 }
        let fds = settled("fd"), threads = settled("task")
        // While viewers watch, the descriptors must be seen to grow: the count is the daemon's.
        let peakFds = Counter(), peakThreads = Counter(), sampling = Counter()
        sampling.set(1)
        Thread.detachNewThread {
            while sampling.value == 1 {
                peakFds.raise(to: count("fd"))
                peakThreads.raise(to: count("task"))
                Thread.sleep(forTimeInterval: 0.1)  // sampling the peak at 10 Hz while viewers come and go
            }
        }
        defer { sampling.set(0) }
        for round in 1...4 {
            let results = try viewers(serve, count: 3, seconds: 3)
            XCTAssertEqual(results.count, 3)
            for r in results {
                XCTAssertGreaterThan(r.frames, 0, "round \(round): \(r)")
                XCTAssertEqual(r.deleted, 204, "round \(round): \(r)")
            }
            eventually("round \(round): viewers \(viewersNow())", timeout: .seconds(20)) { viewersNow() == 0 }
        }
        sampling.set(0)
        let peak = (fds: peakFds.value, threads: peakThreads.value)
        let fdsAfter = settled("fd", atMost: fds), threadsAfter = settled("task", atMost: threads + 2)
        print("WHEP come and go: descriptors \(fds) -> \(fdsAfter) (at most \(peak.fds) while watched), "
              + "threads \(threads) -> \(threadsAfter) (at most \(peak.threads)), 15 viewers")
        XCTAssertGreaterThan(peak.fds, fds + 3, "three viewers' sockets were never seen: not the daemon's count?")
        XCTAssertLessThanOrEqual(fdsAfter, fds, "descriptors left open by viewers that went")
        XCTAssertLessThanOrEqual(threadsAfter, threads + 2, "threads left running by viewers that went")
        XCTAssertEqual(try webrtcStatus(serve)["dropped"] as? Int, 0)
        XCTAssertEqual(try serve.curl("GET", "/status").json()["state"] as? String, "running")
    }

    /// A viewer that vanishes without DELETE (no RTCP, no ICE any more) is let go by itself.
    func testAViewerThatVanishesIsDropped() throws {
        let serve = try ServeProcess(self)
        let results = try viewers(serve, count: 2, seconds: 4, keep: true)
        XCTAssertEqual(results.map(\.status), [201, 201])
        XCTAssertTrue(results.allSatisfy { $0.frames > 0 }, "\(results)")
        XCTAssertEqual(try webrtcStatus(serve)["viewers"] as? Int, 2, "still open right after the viewers went")
        eventually("the silent viewers to be let go: \(serve.log)", timeout: .seconds(40)) { (try? self.webrtcStatus(serve)["viewers"] as? Int) == 0 }
        XCTAssertEqual(try webrtcStatus(serve)["dropped"] as? Int, 2)
        XCTAssertTrue(serve.log.contains("let go: nothing came from the viewer any more"), serve.log)
        // The camera and the other consumers did not notice.
        XCTAssertEqual(try serve.curl("GET", "/status").json()["state"] as? String, "running")
    }

    /// Offers that cannot be answered get a 4xx with a JSON error saying what to change.
    func testBadOffersGetA4xxSayingWhatToChange() throws {
        let serve = try ServeProcess(self)
        func post(_ body: String, type: String = "application/sdp") throws -> HTTPReply {
            try serve.curl("POST", "/whep", extra: ["-H", "Content-Type: \(type)", "--data-binary", body])
        }
        let notSDP = try post("hello")
        XCTAssertEqual(notSDP.status, 400)
        XCTAssertTrue(notSDP.error.contains("not an SDP offer"), notSDP.text)
        let audioOnly = try post("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
                                 + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n")
        XCTAssertEqual(audioOnly.status, 400)
        XCTAssertTrue(audioOnly.error.contains("no video m-line"), audioOnly.text)
        let vp8Only = try post("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
                               + "m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\na=rtpmap:96 VP8/90000\r\n"
                               + "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n")
        XCTAssertEqual(vp8Only.status, 400)
        XCTAssertTrue(vp8Only.error.contains("accepts VP8, not H264"), vp8Only.text)
        let form = try post("v=0", type: "application/x-www-form-urlencoded")
        XCTAssertEqual(form.status, 415)
        XCTAssertTrue(form.error.contains("application/sdp"), form.text)
        let unknown = try serve.curl("DELETE", "/whep/no-such-session")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(unknown.error.contains("no WHEP session"), unknown.text)
        let patch = try serve.curl("PATCH", "/whep/no-such-session")
        XCTAssertEqual(patch.status, 405, "no trickle ICE: the answer is complete")
        XCTAssertEqual(try webrtcStatus(serve)["viewers"] as? Int, 0)
    }
}
