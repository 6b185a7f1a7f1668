import FoundationEssentials
import Glibc
import Soup
import Plumb
import PlumbLocation
import PlumbMedia

/// What the control API needs from the running capture session. `plumb serve`
/// implements it on its `CaptureSession`; every method may throw an `APIError`
/// (409 busy, 503 camera unavailable) or any other error (500); the recording's may
/// throw a `RecorderError`, which the routes answer with its status.
public protocol ControlBackend: Sendable {
    /// The camera's part of `GET /status`.
    func status() async throws -> CameraStatus
    /// `POST /photo`: a JPEG from the running session, and its facts.
    func takePhoto() async throws -> CapturedPhoto
    /// `POST /clip?seconds=N` (N already checked to be 1...60): an MP4 file the
    /// API streams to the client and then deletes, and its facts.
    func recordClip(seconds: Int) async throws -> CapturedClip
    /// `POST /recording/start`: the new recording's facts (its file name at least).
    func startRecording() async throws -> any Encodable & Sendable
    /// `POST /recording/stop`: the finished recording's facts.
    func stopRecording() async throws -> any Encodable & Sendable
}

/// The camera's state, as `GET /status` reports it.
public struct CameraStatus: Sendable, Equatable, Encodable {
    public var camera: String
    /// The negotiated caps, e.g. `video/x-raw, width=1280, height=720, framerate=30/1`.
    public var caps: String?
    /// Frames per second measured at the tee over the last seconds.
    public var measuredFPS: Double?
    /// Frames missing between those the camera delivered since it opened
    /// (`CaptureSession.framesLost`); nil while no camera runs.
    public var framesLost: Int?
    /// The current capture angle: 0, 90, 180 or 270.
    public var orientation: Int
    /// The current recording's file name, nil when not recording.
    public var recordingFile: String?
    /// Why the recording stopped and waits for room on the disk (a write error); nil unless it does.
    public var recordingWaitsForRoom: String?
    public var rtspClients: Int
    /// `running` while the preview encoder runs, `idle` while no consumer takes it (nil: not reported).
    public var previewEncoder: String?
    /// The camera's state: running, opening, unavailable or closed (nil: not reported).
    public var state: String?
    /// Why the camera is unavailable, when it is.
    public var problem: String?
    /// The RTSP preview's URL.
    public var rtspURL: String?
    /// The upstream publisher's state (`[publish] url`), nil when not publishing.
    public var publish: String?
    /// Where the angle comes from ("fixed:0", "iio:...", "replay:FILE").
    public var rotationSource: String?
    /// The last error the daemon reported (`error` event) and when; nil when none yet.
    public var lastError: LastError?
    /// Where captures get their GPS, the fix held and its age (`[location]`); nil when not reported.
    public var location: LocationStatus?
    /// The preview's and the recordings' encoders and why better ones were passed over.
    public var encoders: EncoderStatus?
    /// The encoders running now and what each feeds; nil: not reported.
    public var runningEncoders: [EncoderStatus.Running]?
    /// The digital zoom (`POST /zoom`); nil while no camera runs.
    public var zoom: ZoomState?
    /// The current camera as `[camera] device` names it ("test", "image:FILE", "/dev/video0"):
    /// the one at start until `POST /camera` switches; nil while no camera runs.
    public var device: String?
    /// The kept camera controls (`[camera] controls`, `PATCH /controls`), those the current
    /// camera lacks and whether the lock holds; nil when not reported.
    public var controls: CameraControlKeeper.Status?

    public init(camera: String, caps: String? = nil, measuredFPS: Double? = nil, orientation: Int = 0,
                recordingFile: String? = nil, rtspClients: Int = 0) {
        self.camera = camera
        self.caps = caps
        self.measuredFPS = measuredFPS
        self.orientation = orientation
        self.recordingFile = recordingFile
        self.rtspClients = rtspClients
    }
}

public struct CapturedPhoto: Sendable {
    public var jpeg: Data
    public var facts: any Encodable & Sendable
    public init(jpeg: Data, facts: any Encodable & Sendable) {
        self.jpeg = jpeg
        self.facts = facts
    }
}

public struct CapturedClip: Sendable {
    /// A temporary MP4; deleted after it is sent (or the client goes away), unless `sent`
    /// takes care of it.
    public var path: String
    public var facts: any Encodable & Sendable
    /// Told whether the client got the whole clip, once the answer is over; it then owns
    /// the file. nil: the API deletes the file.
    public var sent: (@Sendable (_ delivered: Bool) -> Void)?
    public init(path: String, facts: any Encodable & Sendable, sent: (@Sendable (_ delivered: Bool) -> Void)? = nil) {
        self.path = path
        self.facts = facts
        self.sent = sent
    }
}

/// The HTTP control API of `plumb serve` (issue 5), as routes over a backend:
///
/// - `GET /status` — the backend's `CameraStatus` plus uptime and disk free
/// - `POST /photo` — `image/jpeg`, facts in `X-Plumb-Photo`
/// - `POST /clip?seconds=N` (1–60) — `video/mp4`, facts in `X-Plumb-Clip`
/// - `POST /recording/start`, `POST /recording/stop` — JSON facts
/// - `GET /recordings`, `GET /recordings/NAME` — from the recordings folder only
/// - `GET /events` — server-sent `ServiceEvent`s
/// - `POST /event?post-seconds=N` — an event clip with pre-record (`EventClips` adds the route)
///
/// Errors are `{"error": "..."}` with 400/404/405/409/503.
public final class ControlAPI: Sendable {
    /// What only the daemon knows, asked for on every `GET /status`; each nil is `null`.
    /// Given at init and never changed: read bare, never out of a lock (issue 22).
    public struct StatusSources: Sendable {
        /// `events`: the event recorder's ring and clips.
        public var events: (@Sendable () -> (any Encodable & Sendable)?)?
        /// `webrtc`: the WHEP preview.
        public var webrtc: (@Sendable () -> (any Encodable & Sendable)?)?
        /// `clock`: the wall clock's state and its last jump.
        public var clock: (@Sendable () -> WallClockWatch.Status)?
        /// `repairs`: what the start-up repair did to the recordings a crash left (the
        /// files it changed or could not).
        public var repairs: (@Sendable () -> [RepairReport])?
        /// `motion`: the motion detector's state (`[motion]`).
        public var motion: (@Sendable () -> MotionService.Status)?

        public init(events: (@Sendable () -> (any Encodable & Sendable)?)? = nil,
                    webrtc: (@Sendable () -> (any Encodable & Sendable)?)? = nil,
                    clock: (@Sendable () -> WallClockWatch.Status)? = nil,
                    repairs: (@Sendable () -> [RepairReport])? = nil,
                    motion: (@Sendable () -> MotionService.Status)? = nil) {
            self.events = events
            self.webrtc = webrtc
            self.clock = clock
            self.repairs = repairs
            self.motion = motion
        }
    }

    public let folder: RecordingsFolder
    /// What `GET /events` serves; whoever has it publishes.
    public let events: EventBus
    /// What the operator should know that does not stop the service (an API open to
    /// the network without a token): in every `GET /status`.
    public let warnings: [String]
    private let backend: any ControlBackend
    private let started = ContinuousClock.now
    private let sources: StatusSources
    /// What retention deleted and its limits, for `GET /status`'s `retention`; nil: none.
    private let retention: Retention?

    public init(backend: any ControlBackend, folder: RecordingsFolder, events: EventBus = EventBus(),
                warnings: [String] = [], retention: Retention? = nil, status sources: StatusSources = StatusSources()) {
        self.retention = retention
        self.backend = backend
        self.folder = folder
        self.events = events
        self.warnings = warnings
        self.sources = sources
    }

    /// The routes, ready for `HTTPServer(router:...)`; more can be added to it.
    public var router: Router {
        var r = Router()
        r.get("/status") { [self] _ in .json(try await status()) }
        r.post("/photo") { [self] _ in
            let photo = try await backend.takePhoto()
            return .bytes(photo.jpeg, contentType: "image/jpeg",
                          headers: ["X-Plumb-Photo": try JSON.headerValue(AnyEncodable(photo.facts))])
        }
        r.post("/clip") { [self] request in
            let seconds = try Self.clipSeconds(request.query["seconds"])
            let clip = try await backend.recordClip(seconds: seconds)
            let facts: String
            do {
                facts = try JSON.headerValue(AnyEncodable(clip.facts))
            } catch {
                if let sent = clip.sent { sent(false) } else { unlink(clip.path) }
                throw error
            }
            var response = HTTPResponse.file(clip.path, contentType: "video/mp4", headers: ["X-Plumb-Clip": facts],
                                             removeWhenDone: clip.sent == nil)
            response.onFinished = clip.sent
            return response
        }
        // The recorder says why it refuses (`RecorderError`); the status and the advice are the API's.
        r.post("/recording/start") { [self] _ in
            do { return .json(AnyEncodable(try await backend.startRecording())) } catch { throw APIError.from(error) }
        }
        r.post("/recording/stop") { [self] _ in
            do { return .json(AnyEncodable(try await backend.stopRecording())) } catch { throw APIError.from(error) }
        }
        r.get("/recordings") { [self] _ in .json(try folder.list()) }
        r.get("/recordings/{name}") { [self] request in try folder.download(request.parameters["name"] ?? "") }
        r.get("/events") { [self] _ in events.channel.response() }
        return r
    }

    /// `GET /status`'s body: every key, always, `null` when it has no value (clients
    /// can tell "no problem" from "an older daemon that does not report problems").
    struct Status: Encodable {
        var camera: CameraStatus
        var uptimeSeconds: Double
        var diskFreeBytes: Int64?
        var recordingsFolder: String
        var warnings: [String]
        var repairs: [RepairReport]
        var events: AnyEncodable? = nil
        var retention: Retention.Status?
        var clock: WallClockWatch.Status?
        var webrtc: AnyEncodable? = nil
        var motion: MotionService.Status?

        enum CodingKeys: String, CodingKey {
            case camera, caps, fps, framesLost = "frames_lost", orientation, recording, rtspClients = "rtsp_clients", previewEncoder = "preview_encoder"
            case state, problem, rtspURL = "rtsp_url", publish, rotation
            case uptimeSeconds = "uptime_seconds", diskFreeBytes = "disk_free_bytes", recordingsFolder = "recordings_folder"
            case warnings, lastError = "last_error", location, repairs, events, retention, clock
            case encoders, runningEncoders = "running_encoders", webrtc, zoom, device, controls, motion
        }

        struct Recording: Encodable {
            var state: String
            var file: String?
            /// Why the recording waits for room (`state` is `waiting-for-room`).
            var problem: String?

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(state, forKey: .state)
                try c.encode(file, forKey: .file)  // null while idle
                try c.encode(problem, forKey: .problem)
            }

            enum CodingKeys: String, CodingKey { case state, file, problem }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(camera.camera, forKey: .camera)
            try c.encode(camera.caps, forKey: .caps)
            try c.encode(camera.measuredFPS, forKey: .fps)
            try c.encode(camera.framesLost, forKey: .framesLost)
            try c.encode(camera.orientation, forKey: .orientation)
            let state = camera.recordingFile != nil ? "recording" : camera.recordingWaitsForRoom != nil ? "waiting-for-room" : "idle"
            try c.encode(Recording(state: state, file: camera.recordingFile, problem: camera.recordingWaitsForRoom),
                         forKey: .recording)
            try c.encode(camera.rtspClients, forKey: .rtspClients)
            try c.encode(camera.previewEncoder, forKey: .previewEncoder)
            // `encode` of an Optional writes null for nil (`encodeIfPresent` would drop the key).
            try c.encode(camera.state, forKey: .state)
            try c.encode(camera.problem, forKey: .problem)
            try c.encode(camera.rtspURL, forKey: .rtspURL)
            try c.encode(camera.publish, forKey: .publish)
            try c.encode(camera.rotationSource, forKey: .rotation)
            try c.encode((uptimeSeconds * 10).rounded() / 10, forKey: .uptimeSeconds)
            try c.encode(diskFreeBytes, forKey: .diskFreeBytes)
            try c.encode(recordingsFolder, forKey: .recordingsFolder)
            try c.encode(warnings, forKey: .warnings)
            try c.encode(camera.lastError, forKey: .lastError)
            try c.encode(camera.location, forKey: .location)
            try c.encode(repairs, forKey: .repairs)
            try c.encode(events, forKey: .events)
            try c.encode(retention, forKey: .retention)
            try c.encode(camera.encoders, forKey: .encoders)
            try c.encode(camera.runningEncoders, forKey: .runningEncoders)
            try c.encode(clock, forKey: .clock)
            try c.encode(webrtc, forKey: .webrtc)
            try c.encode(camera.zoom, forKey: .zoom)
            try c.encode(camera.device, forKey: .device)
            try c.encode(camera.controls, forKey: .controls)
            try c.encode(motion, forKey: .motion)
        }
    }

    func status() async throws -> Status {
        let camera = try await backend.status()
        let uptime = ContinuousClock.now - started
        return Status(camera: camera,
                      uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
                      diskFreeBytes: folder.freeBytes(), recordingsFolder: folder.path, warnings: warnings,
                      repairs: sources.repairs?() ?? [], events: sources.events?().map(AnyEncodable.init),
                      retention: retention?.status, clock: sources.clock?(),
                      webrtc: sources.webrtc?().map(AnyEncodable.init), motion: sources.motion?())
    }

    static func clipSeconds(_ text: String?) throws(APIError) -> Int {
        guard let text else {
            throw .badRequest("POST /clip needs ?seconds=N, a whole number of seconds from 1 to 60")
        }
        guard let n = Int(text), (1...60).contains(n) else {
            throw .badRequest("seconds=\(text) is out of range: use a whole number of seconds from 1 to 60")
        }
        return n
    }
}
