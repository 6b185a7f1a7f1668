import Foundation
import GStreamer
import Soup
import Synchronization

/// `plumb serve`: one process that owns the camera and serves everyone from it.
///
/// ```
///                       ┌─ EncodedPreviewOutput ─> EncodedStream ─┬─> RTSPPreview (any number of consumers)
/// camera ─> CaptureSession (tee) ─┼─ PhotoOutput (stills: /photo, SIGUSR1)          └─> RTSPPublisher ([publish] url)
///                       ├─ MovieOutput (ContinuousRecorder: /recording, [recording] continuous, segments)
///                       └─ MovieOutput (clips: /clip)
/// RotationObserver ─> angles ─> the session (preview turned, stills/recordings tagged) and /events
/// HTTPServer ─> ControlAPI ─> SessionBackend ─> CameraSlot (the running session, or 503)
/// ```
///
/// The camera is opened once. When it cannot be opened, or fails while running, the
/// servers stay up (the API answers 503 and says why) and a supervisor reopens it with a
/// backoff; a recording that was running resumes in a new file. `shutdown()` finalizes
/// every file, closes every client and the camera.
public actor ServeDaemon {
    /// Where the daemon can be reached, once started.
    public struct Addresses: Sendable {
        /// rtsp://HOST:PORT/PATH
        public var rtsp: String
        /// The control API's bound address (the real port when 0 was configured).
        public var http: ListenAddress
    }

    public nonisolated let config: ServeConfig
    public nonisolated let choices: ServeChoices
    public nonisolated let camera: CameraSlot
    public nonisolated let folder: RecordingsFolder
    public nonisolated let api: ControlAPI
    public nonisolated let backend: SessionBackend
    public nonisolated let recorder: ContinuousRecorder
    public nonisolated let stream: EncodedStream
    public nonisolated let preview: RTSPPreview
    public nonisolated let publisher: RTSPPublisher?
    public nonisolated let observer: RotationObserver
    /// What the operator should know that does not stop the daemon: said on stderr at
    /// start and kept in `GET /status`.
    public nonisolated let warnings: [String]

    private nonisolated let log: @Sendable (String) -> Void
    private nonisolated let events: EventRelay
    private nonisolated let fps: FPSMeter
    private nonisolated let http: HTTPServer
    private nonisolated let httpLoop: MainContextThread
    private nonisolated let rtspLoop = MainContextThread(name: "plumb.rtsp")

    private var angles = RotationAngles(capture: .degrees0, preview: .degrees0)
    private var supervisor: Task<Void, Never>?
    private var watchers: [Task<Void, Never>] = []
    private var stopping = false
    private var started = false
    /// The last camera problem said, so a camera that stays away is not logged every retry.
    private var lastProblem: String?

    /// Builds everything from a checked config; nothing runs until `start()`.
    /// `log` gets one line per thing worth saying (start-up facts, files, errors).
    public init(config: ServeConfig, choices: ServeChoices, log: @escaping @Sendable (String) -> Void) throws {
        try Gst.initialize()
        self.config = config
        self.choices = choices
        self.log = log
        folder = RecordingsFolder(config.recording.folder)
        let events = EventRelay()
        self.events = events
        let stream = EncodedStream(), camera = CameraSlot(), fps = FPSMeter()
        self.stream = stream
        self.camera = camera
        self.fps = fps

        var credentials: RTSPServer.Credentials?
        switch config.preview.auth {
        case .none: credentials = nil
        case let .basic(user, password): credentials = .init(method: .basic, user: user, password: password)
        case let .digest(user, password): credentials = .init(method: .digest, user: user, password: password)
        }
        let preview = try RTSPPreview(stream: stream, configuration: .init(
            address: config.preview.address, port: Int(config.preview.port), path: config.preview.path,
            credentials: credentials))
        self.preview = preview
        let publisher = try config.publish.url.map { url in
            try RTSPPublisher(stream: stream, configuration: .init(url: url))
        }
        self.publisher = publisher

        let accelerometer = choices.sensor
        let coordination = RotationCoordinator.Configuration(
            mount: RotationAngle(degrees: config.rotation.mount) ?? .degrees0,
            facing: config.rotation.facing == .front ? .front : .back,
            hysteresis: config.rotation.hysteresis)
        observer = RotationObserver(accelerometer: accelerometer, configuration: coordination)

        let codec: VideoCodec = config.recording.codec == .h265 ? .h265 : .h264
        let folder = self.folder
        let recorder = ContinuousRecorder(
            settings: .init(folder: folder, codec: codec, segmentSeconds: config.recording.segmentSeconds,
                            splitOnRotation: config.rotation.splitOnRotation),
            publish: { events.publish($0) }, log: log)
        self.recorder = recorder
        let rotationSource = choices.accelerometer.description
        let backend = SessionBackend(camera: camera, recorder: recorder, folder: folder, codec: codec, fps: fps,
                                     log: log) {
            var extras = SessionBackend.StatusExtras()
            extras.rtspClients = preview.clientCount
            extras.rtspURL = preview.url
            extras.publish = publisher.map { "\($0.state)" }
            extras.rotationSource = rotationSource
            extras.lastError = events.lastError.current
            return extras
        }
        self.backend = backend
        let warnings = Self.warnings(for: config)
        self.warnings = warnings
        let api = ControlAPI(backend: backend, folder: folder, warnings: warnings)
        self.api = api
        events.set(api)
        let httpLoop = MainContextThread(name: "plumb.http")
        self.httpLoop = httpLoop
        http = HTTPServer(router: api.router, context: httpLoop.context,
                          options: HTTPServer.Options(bearerToken: config.http.token))
    }

    /// Starts the servers, the rotation and the camera; returns once the camera was tried
    /// once (opened, or found unavailable — then it is retried in the background).
    /// - Throws: what keeps the daemon from serving at all: the recordings folder cannot
    ///   be made, an address is taken.
    public func start() async throws -> Addresses {
        guard !started else { throw CaptureError.invalidArgument("plumb serve is already started") }
        started = true
        try folder.create()
        backend.removeStaleClips()

        let bound = try await http.start(listen: config.http.listen)
        for warning in warnings { log("warning: \(warning)") }
        do {
            try preview.start(on: rtspLoop.context)
        } catch {
            await http.stop()
            throw ServeError("cannot serve the RTSP preview on \(config.preview.address):\(config.preview.port): \(error); "
                             + "choose another [preview] port or stop what listens there")
        }
        if let publisher { watchPublisher(publisher) }
        followRotation()
        _ = await openCamera()
        supervisor = Task { await self.superviseCamera() }
        if config.recording.continuous { await recorder.startContinuous() }
        return Addresses(rtsp: preview.url, http: bound)
    }

    /// The configurations that work but should not be left as they are.
    static func warnings(for config: ServeConfig) -> [String] {
        var warnings: [String] = []
        if !config.http.listen.isLoopback && config.http.token == nil {
            warnings.append("the control API listens on \(config.http.listen.host), open to the network, without a token: "
                            + "anyone who reaches this machine can take photos, record and download the recordings; "
                            + "set [http] token (e.g. openssl rand -hex 16) or listen on 127.0.0.1")
        }
        return warnings
    }

    /// SIGUSR1: a still into the recordings folder (complete or not at all).
    public func saveStill() async {
        do {
            let photo = try await backend.takePhoto()
            let path = folder.newFile(extension: "jpg")
            try photo.jpeg.write(to: URL(fileURLWithPath: path), options: .atomic)
            let name = URL(fileURLWithPath: path).lastPathComponent
            events.publish(.photoSaved(file: name, facts: photo.facts))
            log("still saved: \(path)")
        } catch {
            report("could not save a still: \(error)")
        }
    }

    /// How long a stop waits for clients to take the clips it cut short; what is not taken
    /// by then is kept in the recordings folder.
    public static let clipDeliveryLimit: Duration = .seconds(15)

    /// Finalizes every file, closes every client and the camera. Idempotent. Clips being
    /// recorded are cut where they stand and answered first, their facts saying `reason`.
    public func shutdown(reason: String = "plumb serve is stopping") async {
        guard !stopping else { return }
        stopping = true
        supervisor?.cancel()
        for task in watchers { task.cancel() }
        let clips = backend.cutClips(because: reason)
        if clips > 0 { log("\(reason): cutting \(clips) clip\(clips == 1 ? "" : "s") short and answering them") }
        await recorder.shutdown()
        if await !backend.waitForClips(limit: Self.clipDeliveryLimit) {
            report("a client did not take its clip within \(Self.clipDeliveryLimit): it is kept in the recordings folder")
        }
        preview.stop()
        publisher?.stop()
        api.events.finishAll()
        await http.stop()
        let last = camera.current
        camera.set(.closed)
        if case .running(let session) = last { await session.close() }
        await supervisor?.value
        observer.stop()
        stream.close()
        rtspLoop.stop()
        httpLoop.stop()
    }

    // MARK: The camera

    /// One attempt to open the camera, attach the preview and resume a recording.
    private func openCamera() async -> Bool {
        let size = VideoSize(width: config.camera.size.width, height: config.camera.size.height)
        do {
            let session = try await CaptureSession.open(choices.camera, size: size, rate: FrameRate(config.camera.fps))
            guard !stopping else {
                await session.close()
                return false
            }
            await session.setRotation(angles)
            let format = await session.format
            let encoding = PreviewEncoding(bitrate: config.preview.bitrate,
                                           keyframeInterval: max(1, Int((format.rate.perSecond * Double(config.preview.keyframeSeconds)).rounded())),
                                           canvas: config.preview.letterbox ? format.size : nil)
            do {
                try await session.attach(EncodedPreviewOutput(encoding: encoding, stream: stream))
            } catch {
                await session.close()
                throw error
            }
            camera.set(.running(session))
            lastProblem = nil
            log("camera open: \(session.camera.name), \(format)")
            await recorder.sessionOpened(session)
            return true
        } catch {
            let why = "\(error)"
            camera.set(.unavailable(why))
            if why != lastProblem {
                lastProblem = why
                report("camera unavailable: \(why); retrying in the background")
            }
            return false
        }
    }

    /// Watches the running session; reopens the camera when it fails or stalls.
    private func superviseCamera() async {
        var failures = 0
        while !stopping {
            if case .running(let session) = camera.current {
                let why = await watch(session)
                guard !stopping else { return }
                await lose(session, because: why)
                failures = 0
            }
            let backoff = Duration.seconds(min(30, 1 << min(failures, 5)))
            do { try await Task.sleep(for: backoff) } catch { return }
            guard !stopping else { return }
            failures = await openCamera() ? 0 : failures + 1
        }
    }

    /// Returns why the session stopped delivering: about a second of frames must come every 5 s.
    private func watch(_ session: CaptureSession) async -> String {
        let perSecond = max(1, Int(await session.format.rate.perSecond.rounded(.down)))
        while true {
            do {
                try await session.waitForFrames(perSecond, timeout: .seconds(5))
                fps.add(frames: await session.frameCount)
            } catch CaptureError.timedOut {
                return "\(session.camera.identifier) stopped delivering frames for 5 s"
            } catch {
                return "\(await session.failure.map { "\($0)" } ?? "\(error)")"
            }
        }
    }

    private func lose(_ session: CaptureSession, because why: String) async {
        camera.set(.unavailable(why))
        lastProblem = why
        fps.reset()
        report("camera lost: \(why); reopening it")
        await recorder.sessionLost()
        await session.close()
    }

    // MARK: Rotation

    /// The session follows the observer's angles (read once before observing, then every
    /// change, newest only); each change of the capture angle goes to /events.
    private func followRotation() {
        angles = observer.angles
        let capture = observer.captureAngles, previewAngles = observer.previewAngles
        let reports = observer.reports()
        watchers.append(Task { [weak self] in
            for await angle in capture {
                guard let self else { return }
                await self.apply(capture: angle)
            }
        })
        watchers.append(Task { [weak self] in
            for await angle in previewAngles {
                guard let self else { return }
                await self.apply(preview: angle)
            }
        })
        watchers.append(Task { [weak self] in
            for await report in reports {
                guard let self else { return }
                if case .event(.unavailable(let why)) = report {
                    await self.report("accelerometer unavailable: \(why); the last angle holds")
                } else if case .event(.available(let name)) = report, !name.hasPrefix("fixed:") {
                    self.log("accelerometer: \(name)")
                }
            }
        })
        observer.start()
    }

    private func apply(capture angle: RotationAngle) async {
        angles.capture = angle
        if case .running(let session) = camera.current { await session.setRotation(angles) }
        events.publish(.orientationChanged(angle: angle.degrees))
        log("orientation: \(angle.degrees) degrees")
    }

    private func apply(preview angle: RotationAngle) async {
        angles.preview = angle
        if case .running(let session) = camera.current { await session.setRotation(angles) }
    }

    // MARK: Publishing

    private func watchPublisher(_ publisher: RTSPPublisher) {
        let updates = publisher.stateUpdates()
        watchers.append(Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                switch state {
                case .connected: self.log("publishing to \(publisher.configuration.url)")
                case .waiting: await self.report("publishing to \(publisher.configuration.url): \(state)")
                default: break
                }
            }
        })
        publisher.start()
    }

    private func report(_ message: String) {
        events.publish(.error(message: message))
        log("error: \(message)")
    }
}

/// A daemon start-up failure that says what to fix.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Sends events to the control API once it exists (the recorder is made before it), and
/// keeps the last `error` for `GET /status`.
final class EventRelay: Sendable {
    private let target = Mutex<ControlAPI?>(nil)
    let lastError = LastErrorBox()
    func set(_ api: ControlAPI) { target.withLock { $0 = api } }
    func publish(_ event: ServiceEvent) {
        if case .error(let message) = event { lastError.record(message) }
        target.withLock { $0 }?.publish(event)
    }
}
