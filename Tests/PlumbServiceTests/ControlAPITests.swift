import Foundation
import PlumbTestSupport
import GStreamer
@testable import Plumb
import PlumbRotation
@testable import PlumbService
import Soup
import Synchronization
import XCTest
import GLib

/// Facts as a session would report them (the session's own types are richer).
private struct Facts: Codable, Sendable, Equatable {
    var camera: String
    var file: String?
    var seconds: Int?
}

/// A backend with the session's contract, producing real media with
/// gst-launch-1.0 (the capture session itself is another issue's work).
private actor MediaBackend: ControlBackend {
    let workDirectory: String
    var recording: String?
    var cameraPresent = true
    var clipsMade: [String] = []
    /// What the recorder refuses every start and stop with; nil: it records.
    var recorderRefusal: RecorderError?

    init(workDirectory: String) {
        self.workDirectory = workDirectory
    }

    func setCameraPresent(_ present: Bool) { cameraPresent = present }

    func refuseRecording(_ refusal: RecorderError) { recorderRefusal = refusal }

    func status() async throws -> CameraStatus {
        guard cameraPresent else { throw APIError.cameraUnavailable("the camera is gone: reconnect it") }
        return CameraStatus(camera: "Caméra de test", caps: "video/x-raw, width=320, height=240, framerate=30/1",
                            measuredFPS: 29.9, orientation: 90, recordingFile: recording, rtspClients: 2)
    }

    func takePhoto() async throws -> CapturedPhoto {
        guard cameraPresent else { throw APIError.cameraUnavailable("the camera is gone: reconnect it") }
        let path = workDirectory + "/photo-\(UUID().uuidString).jpg"
        let r = try await ServiceClient.run("/usr/bin/gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=320,height=240", "!", "jpegenc", "!",
            "filesink", "location=\(path)"])
        guard r.status == 0 else { throw APIError.internalError("gst-launch failed") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        return CapturedPhoto(jpeg: try Data(contentsOf: URL(fileURLWithPath: path)), facts: Facts(camera: "Caméra de test"))
    }

    func recordClip(seconds: Int) async throws -> CapturedClip {
        let path = workDirectory + "/clip-\(UUID().uuidString).mp4"
        let r = try await ServiceClient.run("/usr/bin/gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=\(seconds * 30)", "!", "video/x-raw,width=320,height=240,framerate=30/1", "!",
            "x264enc", "speed-preset=ultrafast", "!", "mp4mux", "!", "filesink", "location=\(path)"])
        guard r.status == 0 else { throw APIError.internalError("gst-launch failed") }
        clipsMade.append(path)
        return CapturedClip(path: path, facts: Facts(camera: "Caméra de test", seconds: seconds))
    }

    func startRecording() async throws -> any Encodable & Sendable {
        if let recorderRefusal { throw recorderRefusal }
        if let recording { throw APIError.busy("already recording \(recording): POST /recording/stop first") }
        recording = "2026-11-29T21-00-00Z.mp4"
        return Facts(camera: "Caméra de test", file: recording)
    }

    func stopRecording() async throws -> any Encodable & Sendable {
        if let recorderRefusal { throw recorderRefusal }
        guard let file = recording else { throw APIError.busy("not recording: POST /recording/start first") }
        recording = nil
        return Facts(camera: "Caméra de test", file: file)
    }
}

final class ControlAPITests: XCTestCase {
    private var root: URL!
    private var thread: MainContextThread!
    private var server: HTTPServer!
    private var api: ControlAPI!
    private var backend: MediaBackend!
    private var base = ""
    /// Just before the served API was made: its uptime counts from a moment after this.
    private var apiMade = ContinuousClock.now
    /// Just after it was served: its uptime counts from a moment before this.
    private var apiServed = ContinuousClock.now

    override func setUp() async throws {
        root = try temporaryDirectory(self, "plumb-api")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("work"), withIntermediateDirectories: true)
        let folder = RecordingsFolder(root.appendingPathComponent("recordings").path)
        try folder.create()
        backend = MediaBackend(workDirectory: root.appendingPathComponent("work").path)
        thread = MainContextThread(name: "plumb.test-api")
        apiMade = ContinuousClock.now
        try await serve(ControlAPI(backend: backend, folder: folder, events: EventBus(channel: EventChannel(heartbeat: .seconds(60)))))
        apiServed = ContinuousClock.now
    }

    /// Serves `api` in place of the one served (on the same thread).
    private func serve(_ api: ControlAPI) async throws {
        await server?.stop()
        self.api = api
        server = HTTPServer(router: api.router, context: thread.context)
        base = try await server.start(listen: .loopback(port: 0)).httpURL
    }

    override func tearDown() async throws {
        await server?.stop()
        thread?.stop()
    }

    func testStatus() async throws {
        let asked = ContinuousClock.now
        let r = try await ServiceClient.curl([base + "/status"])
        let answered = ContinuousClock.now
        XCTAssertEqual(r.status, 200, r.text)
        let json = try r.json()
        XCTAssertEqual(json["camera"] as? String, "Caméra de test")
        XCTAssertEqual(json["caps"] as? String, "video/x-raw, width=320, height=240, framerate=30/1")
        XCTAssertEqual(json["fps"] as? Double, 29.9)
        XCTAssertEqual(json["orientation"] as? Int, 90)
        XCTAssertEqual(json["rtsp_clients"] as? Int, 2)
        XCTAssertEqual((json["recording"] as? [String: Any])?["state"] as? String, "idle")
        XCTAssertEqual(json["recordings_folder"] as? String, api.folder.path)
        // The API's age when it answered, to the 0.1 s it is rounded to: at least from its
        // serving to the request, at most from before its making to the answer.
        let uptime = try XCTUnwrap(json["uptime_seconds"] as? Double)
        let seconds = { (d: Duration) in Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        XCTAssertGreaterThanOrEqual(uptime, seconds(asked - apiServed) - 0.05, "\(uptime)")
        XCTAssertLessThanOrEqual(uptime, seconds(answered - apiMade) + 0.05, "\(uptime)")
        // Every key the README lists is there; those without a value are null, not missing.
        XCTAssertEqual(Set(json.keys), ["webrtc", "camera", "state", "problem", "caps", "fps", "frames_lost", "orientation", "recording",
                                        "rtsp_clients", "preview_encoder", "rtsp_url", "publish", "rotation",
                                        "disk_free_bytes", "uptime_seconds", "recordings_folder", "warnings", "last_error", "location",
                                        "repairs", "events", "retention", "encoders", "running_encoders", "clock", "zoom", "device", "controls", "motion"])
        XCTAssertEqual((json["repairs"] as? [Any])?.count, 0, "no start-up repair did anything")
        for key in ["state", "problem", "frames_lost", "preview_encoder", "rtsp_url", "publish", "rotation", "last_error", "location",
                    "events", "retention", "encoders", "clock", "controls", "motion"] {
            XCTAssertTrue(json[key] is NSNull, "\(key) is \(String(describing: json[key])), not null")
        }
        let idle = try XCTUnwrap(json["recording"] as? [String: Any])
        XCTAssertEqual(Set(idle.keys), ["state", "file", "problem"])
        XCTAssertTrue(idle["file"] is NSNull, "recording.file is null while idle")
        XCTAssertTrue(idle["problem"] is NSNull, "recording.problem is null unless it waits for room")
        XCTAssertEqual(json["warnings"] as? [String], [])
        XCTAssertTrue(r.text.contains(#""problem":null"#) && r.text.contains(#""publish":null"#), r.text)
        // Disk free agrees with df, read independently (within 1%: files come and go).
        let free = try XCTUnwrap(json["disk_free_bytes"] as? Int64 ?? (json["disk_free_bytes"] as? Int).map(Int64.init))
        let df = try await ServiceClient.run("/usr/bin/df", ["-B1", "--output=avail", api.folder.path])
        let dfFree = try XCTUnwrap(Int64(df.output.split(separator: "\n").last!.trimmingCharacters(in: .whitespaces)))
        XCTAssertLessThan(abs(Double(free - dfFree)) / Double(max(dfFree, 1)), 0.01, "status \(free), df \(dfFree)")

        _ = try await ServiceClient.curl(["-X", "POST", base + "/recording/start"])
        let recording = try await ServiceClient.curl([base + "/status"]).json()["recording"] as? [String: Any]
        XCTAssertEqual(recording?["state"] as? String, "recording")
        XCTAssertEqual(recording?["file"] as? String, "2026-11-29T21-00-00Z.mp4")

        await backend.setCameraPresent(false)
        let gone = try await ServiceClient.curl([base + "/status"])
        XCTAssertEqual(gone.status, 503)
        XCTAssertEqual(try gone.json()["error"] as? String, "the camera is gone: reconnect it")
    }

    /// Issue 22: each `GET /status` wrapped the providers (then set with `setClock`, `setEventStatus`
    /// and `setWebRTCStatus`) in two more reabstraction thunks (read bare out of a `Mutex`), so
    /// every call ran deeper than the last, until the stack overflowed at the 43 657th. The
    /// providers count the frames below them: the count must not grow over thousands of
    /// requests. (Thread.callStackReturnAddresses stops at 128 frames; the first calls are
    /// far below that, and nesting would reach it within 60 requests.)
    func testStatusProvidersRunAtTheSameDepthOverThousandsOfRequests() async throws {
        let depths = Mutex<[String: [Int]]>([:])
        @Sendable func note(_ name: String) { let d = Thread.callStackReturnAddresses.count; depths.withLock { $0[name, default: []].append(d) } }
        try await serve(ControlAPI(backend: backend, folder: api.folder, status: .init(
            events: { note("events"); return ["ring": 1] },
            webrtc: { note("webrtc"); return ["viewers": 0] },
            clock: { note("clock"); return WallClockWatch.Status(synchronized: true, jumps: 0, lastJump: nil) },
            repairs: { note("repairs"); return [] })))
        let perBatch = 2000
        for _ in 0..<3 {
            // One curl, one kept-alive connection, 2000 requests.
            let args = ["-s", "--max-time", "300", "-w", "%{http_code}\n"]
                + Array(repeating: ["-o", "/dev/null", base + "/status"], count: perBatch).flatMap { $0 }
            let r = try await ServiceClient.run("/usr/bin/curl", args)
            XCTAssertEqual(r.status, 0)
            XCTAssertEqual(r.output.split(separator: "\n").filter { $0 == "200" }.count, perBatch, r.output.suffix(200).description)
        }
        let seen = depths.withLock { $0 }
        for name in ["clock", "events", "webrtc", "repairs"] {
            let d = try XCTUnwrap(seen[name], "\(name) was never asked")
            XCTAssertEqual(d.count, 3 * perBatch, name)
            let first = try XCTUnwrap(d.first)
            XCTAssertLessThan(first, 100, "\(name): the first call is already \(first) frames deep")
            XCTAssertLessThanOrEqual(d.max()!, first + 16,
                                     "\(name) ran deeper with each request: \(first) frames at the first, \(d.last!) at the last")
        }
    }

    func testPhoto() async throws {
        let r = try await ServiceClient.curl(["-X", "POST", base + "/photo"])
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers["content-type"], "image/jpeg")
        XCTAssertEqual(Array(r.body.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
        // The facts header is ASCII JSON that decodes back to the facts, accents included.
        let header = try XCTUnwrap(r.headers["x-plumb-photo"])
        XCTAssertTrue(header.allSatisfy(\.isASCII), header)
        XCTAssertEqual(try JSONDecoder().decode(Facts.self, from: Data(header.utf8)), Facts(camera: "Caméra de test"))
        // An independent reader agrees it is a 320x240 JPEG.
        let file = root.appendingPathComponent("photo.jpg").path
        try r.body.write(to: URL(fileURLWithPath: file))
        let probe = try await ServiceClient.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                                     "-of", "csv=p=0", file])
        XCTAssertEqual(probe.output.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,320,240")

        let notAllowed = try await ServiceClient.curl([base + "/photo"])
        XCTAssertEqual(notAllowed.status, 405)
        XCTAssertEqual(notAllowed.headers["allow"], "POST")
        await backend.setCameraPresent(false)
        do {
            let value = try await ServiceClient.curl(["-X", "POST", base + "/photo"]).status
            XCTAssertEqual(value, 503)
        }
    }

    func testClipIsStreamedThenDeleted() async throws {
        let file = root.appendingPathComponent("clip.mp4").path
        let r = try await ServiceClient.curl(["-X", "POST", base + "/clip?seconds=2"], output: file)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers["content-type"], "video/mp4")
        let facts = try JSONDecoder().decode(Facts.self, from: Data(try XCTUnwrap(r.headers["x-plumb-clip"]).utf8))
        XCTAssertEqual(facts.seconds, 2)
        let probe = try await ServiceClient.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                                     "stream=codec_name,nb_read_frames", "-of", "csv=p=0", file])
        XCTAssertEqual(probe.output.trimmingCharacters(in: .whitespacesAndNewlines), "h264,60")
        // The backend's temporary file is gone once sent.
        let made = await backend.clipsMade
        XCTAssertEqual(made.count, 1)
        await eventually("the temporary clip is deleted") { !FileManager.default.fileExists(atPath: made[0]) }

        for bad in ["", "?seconds=0", "?seconds=61", "?seconds=abc", "?seconds=1.5"] {
            let r = try await ServiceClient.curl(["-X", "POST", base + "/clip" + bad])
            XCTAssertEqual(r.status, 400, bad)
            XCTAssertTrue(try XCTUnwrap(r.json()["error"] as? String).contains("from 1 to 60"), bad)
        }
        do {
            let value = await backend.clipsMade.count
            XCTAssertEqual(value, 1, "a bad request never reaches the session")
        }
    }

    func testRecordingStartStopAndConflicts() async throws {
        let start = try await ServiceClient.curl(["-X", "POST", base + "/recording/start"])
        XCTAssertEqual(start.status, 200)
        XCTAssertEqual(try start.json()["file"] as? String, "2026-11-29T21-00-00Z.mp4")
        let again = try await ServiceClient.curl(["-X", "POST", base + "/recording/start"])
        XCTAssertEqual(again.status, 409)
        XCTAssertTrue(try XCTUnwrap(again.json()["error"] as? String).contains("POST /recording/stop first"))
        do {
            let value = try await ServiceClient.curl(["-X", "POST", base + "/recording/stop"]).status
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await ServiceClient.curl(["-X", "POST", base + "/recording/stop"]).status
            XCTAssertEqual(value, 409)
        }
        do {
            let value = try await ServiceClient.curl([base + "/recording/start"]).status
            XCTAssertEqual(value, 405)
        }
    }

    func testRecordingsAreListedAndServedFromTheFolderOnly() async throws {
        let folder = api.folder.path
        func make(_ name: String, _ bytes: Int) throws {
            try Data(repeating: UInt8(bytes % 251), count: bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        // A recording, and one cut in its first second (no movie header: nothing plays).
        for (name, cut) in [("2026-11-29T10-00-00Z.mp4", ""), ("2026-11-29T10-05-00Z.mp4", "identity error-after=10 ! ")] {
            let r = try await ServiceClient.run("/usr/bin/gst-launch-1.0", ("-q videotestsrc num-buffers=60 "
                + "! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc speed-preset=ultrafast key-int-max=15 "
                + "! h264parse ! mp4mux fragment-duration=500 fragment-mode=first-moov-then-finalise ! \(cut)"
                + "filesink location=\(folder)/\(name)").split(separator: " ").map(String.init))
            XCTAssertEqual(r.status == 0, cut.isEmpty, name)
        }
        let recorded = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder + "/2026-11-29T10-00-00Z.mp4")[.size] as? Int)
        try make("still one.jpg", 1200)
        try make("notes.txt", 10)
        try make(".hidden.mp4", 10)
        try FileManager.default.createDirectory(atPath: folder + "/dir.mp4", withIntermediateDirectories: false)
        try "secret".write(toFile: root.appendingPathComponent("outside.jpg").path, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.jpg", withDestinationPath: root.appendingPathComponent("outside.jpg").path)

        let list = try await ServiceClient.curl([base + "/recordings"])
        XCTAssertEqual(list.status, 200)
        let entries = try JSONSerialization.jsonObject(with: list.body) as! [[String: Any]]
        XCTAssertEqual(Set(entries.map { $0["name"] as! String }), ["2026-11-29T10-00-00Z.mp4", "still one.jpg"])
        let video = try XCTUnwrap(entries.first { $0["name"] as? String == "2026-11-29T10-00-00Z.mp4" })
        XCTAssertEqual(video["bytes"] as? Int, recorded)
        XCTAssertEqual(video["kind"] as? String, "video")
        XCTAssertNotNil(video["modified"] as? String)

        let download = try await ServiceClient.curl([base + "/recordings/still%20one.jpg"])
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.headers["content-type"], "image/jpeg")
        XCTAssertEqual(download.headers["content-disposition"], "attachment; filename=\"still one.jpg\"")
        XCTAssertEqual(download.body, Data(repeating: UInt8(1200 % 251), count: 1200))

        // Nothing outside the folder, whatever the name.
        let refused: [(String, Int)] = [
            // A literal ".." segment is removed by soup's URI parser: /recordings/.. is /, which is 404.
            ("..%2Foutside.jpg", 400), ("..", 404), ("../outside.jpg", 404), ("%2E%2E%2Foutside.jpg", 400), (".hidden.mp4", 400),
            ("notes.txt", 400), ("a%00.mp4", 400), ("link.jpg", 404), ("dir.mp4", 404), ("missing.mp4", 404),
            ("2026-11-29T10-05-00Z.mp4", 404),
        ]
        for (name, status) in refused {
            let r = try await ServiceClient.curl(["--path-as-is", base + "/recordings/" + name])
            XCTAssertEqual(r.status, status, name)
            XCTAssertNotNil(try? r.json()["error"], name)
            XCTAssertFalse(r.text.contains("secret"), name)
        }
    }

    /// The recorder says why it refuses (`RecorderError`), in no HTTP terms; the recording
    /// routes choose the status and the advice: the answers `plumb serve` gave when the
    /// recorder threw them itself.
    func testRecordingRoutesAnswerTheRecordersRefusalsWithTheirStatus() async throws {
        let cases: [(refusal: RecorderError, status: Int, message: String)] = [
            (.alreadyRecording(file: "a.mp4"), 409, "already recording to a.mp4; POST /recording/stop first"),
            (.alreadyRecording(file: nil), 409, "already recording to a file; POST /recording/stop first"),
            (.stopping, 409, "the recording is being stopped; try again once POST /recording/stop has answered"),
            (.noCamera, 503, "the camera is not running, so nothing can be recorded now; try again in a moment"),
            (.notRecording, 409, "not recording; POST /recording/start first"),
            (.noRoom("no room to record: 12 kB free"), 507, "no room to record: 12 kB free"),
            (.cannotRecord(CaptureError.closed), 503, "the camera closed while the request ran; try again in a moment"),
            (.cannotRecord(CaptureError.invalidArgument("no such codec")), 400, "no such codec"),
        ]
        for (refusal, status, message) in cases {
            await backend.refuseRecording(refusal)
            for path in ["/recording/start", "/recording/stop"] {
                let r = try await ServiceClient.curl(["-X", "POST", base + path])
                XCTAssertEqual(r.status, status, "\(path), \(refusal): \(r.text)")
                XCTAssertEqual(try r.json()["error"] as? String, message, "\(path), \(refusal)")
            }
        }
    }

    func testEventsCarryServiceEvents() async throws {
        let output = root.appendingPathComponent("events").path
        let client = try ServiceClient.Child("/usr/bin/curl", ["-sS", "-N", base + "/events"], stdout: output)
        await eventually("subscribed") { api.events.channel.subscriberCount == 1 }
        api.events.publish(.orientationChanged(angle: 270))
        api.events.publish(.recordingStarted(file: "a.mp4"))
        api.events.publish(.recordingStopped(file: "a.mp4", facts: Facts(camera: "c", seconds: 3)))
        api.events.publish(.error(message: "camera lost"))
        let expected = """
            id: 1\nevent: orientation\ndata: {"angle":270}\n
            id: 2\nevent: recording-started\ndata: {"file":"a.mp4"}\n
            id: 3\nevent: recording-stopped\ndata: {"facts":{"camera":"c","seconds":3},"file":"a.mp4"}\n
            id: 4\nevent: error\ndata: {"message":"camera lost"}\n\n
            """
        await eventually("four events") {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").hasSuffix(expected)
        }
        client.kill()
        _ = await client.wait()
        await eventually("unsubscribed") { api.events.channel.subscriberCount == 0 }
    }
}
