import Dispatch
import FoundationEssentials
import Glibc
import Soup
import GLib
import PlumbRotation
import Plumb
import PlumbRTSP
import PlumbLocation
import PlumbMedia

/// `plumb serve`: one process that owns the camera and serves everyone from it.
///
/// ```
///                                  ┌─ MainEncodingOutput ───────┐  while nothing records
///                                  ├─ RecordingOutput ───────────┴─> main EncodedStream ─┬─> EventRecorder (pre-record ring; event clips: /event, SIGUSR2)
///                                  │   (ContinuousRecorder: /recording, segments;        ├─> EncodedClip (clips: /clip)
///                                  │    its encoder feeds main while it records)         └─> the preview stream, while upright and H.264
///                                  ├─ EncodedPreviewOutput (turned) ─> turned EncodedStream ─> the preview stream, otherwise
/// camera ─> CaptureSession (tee) ──┼─ PhotoOutput (stills: /photo, SIGUSR1)
///                                  ├─ ScanOutput ─> ScanService ([scan]: barcode events, /scans)
///                                  └─ MotionOutput ─> MotionService ([motion]: motion events, /status, event clip triggers)
/// preview EncodedStream (relays one of the two) ─> RTSPPreview (any number of consumers), WHEPPreview, RTSPPublisher ([publish] url)
/// unturned EncodedStream (relays main, whatever the angle) ─> WHEPPreview's viewers that take the turn as RTP metadata (CVO)
/// MainEncoding ─> the main branch attached while the ring, an event clip (pre-seconds = 0), a /clip, an upright preview consumer or a CVO viewer takes it and no recording feeds main; the preview relays it or the turned one
/// OnDemandPreview ─> the turned preview branch attached only while the preview relays it (5 s linger)
/// RotationObserver ─> angles ─> the session follows them (preview turned, stills/recordings tagged); /events
/// Retention ─> deletes the oldest recordings to keep [recording] max-bytes, min-free-bytes, max-age (never FilesInUse)
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

    /// What `start`, the camera supervisor and `shutdown` work with; only the daemon's
    /// methods (and the tests) reach them.
    nonisolated let config: ServeConfig
    nonisolated let choices: ServeChoices
    nonisolated let log: @Sendable (String) -> Void
    /// What happened, for `GET /events` and `/status`'s `last_error`: every part publishes to it.
    private nonisolated let events: EventBus
    nonisolated let folder: RecordingsFolder
    nonisolated let camera: CameraSlot
    private nonisolated let fps: FPSMeter
    private nonisolated let stream: EncodedStream
    /// Attaches the preview's encoder branch while a consumer takes the stream (`[preview] on-demand`).
    private nonisolated let previewEncoder: OnDemandPreview
    /// The main encoding (recording quality) the ring and, unturned, the preview take.
    private nonisolated let mainEncoding: MainEncoding
    private nonisolated let preview: RTSPPreview
    private nonisolated let publisher: RTSPPublisher?
    /// WebRTC viewers by WHEP (`POST /whep`), fed by the same stream.
    private nonisolated let whep: WHEPPreview
    private nonisolated let observer: RotationObserver
    /// Where stills, clips and recordings get their GPS (`[location]`).
    private nonisolated let location: LocationProvider
    /// Keeps the recordings folder within `[recording] max-bytes`, `min-free-bytes`, `max-age`.
    private nonisolated let retention: Retention
    nonisolated let recorder: ContinuousRecorder
    /// Event clips with pre-record (`[events]`).
    private nonisolated let eventClips: EventClips
    /// `[camera] controls` and what `PATCH /controls` set, applied to every camera opened.
    nonisolated let controls: CameraControlKeeper
    /// Which encoders run and why better ones did not (`/status` encoders, the log).
    private nonisolated let encoders: EncoderStatus
    nonisolated let backend: SessionBackend
    /// Barcode and QR scanning (`[scan]`): `barcode` events, `GET /scans`.
    private nonisolated let scans: ScanService
    /// Motion detection (`[motion]`): `motion` events, `/status`'s `motion`, event clips.
    private nonisolated let motion: MotionService
    /// The wall clock against the monotonic one: jumps logged, its state in `GET /status`.
    nonisolated let clock: WallClockWatch
    /// systemd's `Type=notify` and watchdog, when `$NOTIFY_SOCKET` says it listens.
    nonisolated let systemd: SystemdSupervision?
    /// What the operator should know that does not stop the daemon: said on stderr at
    /// start and kept in `GET /status`.
    private nonisolated let warnings: [String]
    /// What the start-up repair did, for `GET /status`.
    private nonisolated let repairs: RepairReports
    private nonisolated let http: HTTPServer
    private nonisolated let httpLoop: MainContextThread
    private nonisolated let rtspLoop = MainContextThread(name: "plumb.rtsp")

    private var supervisor: Task<Void, Never>?
    private var watchers: [Task<Void, Never>] = []
    private var stopping = false
    private var started = false
    /// The recordings folder, held while the daemon runs: no second daemon or `plumb repair` works in it.
    private var folderLock: FolderLock?
    /// The last camera problem said, so a camera that stays away is not logged every retry.
    private var lastProblem: String?

    /// The recordings folder's path.
    public nonisolated var recordingsFolder: String { folder.path }

    /// Builds everything from a checked config, each part from the parts it needs, in that
    /// order; nothing runs until `start()`.
    /// `log` gets one line per thing worth saying (start-up facts, files, errors).
    /// `notifier`: where systemd listens; nil for `$NOTIFY_SOCKET`, if set.
    public init(config: ServeConfig, choices: ServeChoices, notifier: SystemdNotifier? = nil,
                log: @escaping @Sendable (String) -> Void) throws {
        try CaptureEngine.initialize()
        self.config = config
        self.choices = choices
        self.log = log
        // First: everything that says what happened publishes here, and the API serves it.
        let events = EventBus()
        self.events = events
        let publish: @Sendable (ServiceEvent) -> Void = { events.publish($0) }
        let folder = RecordingsFolder(config.recording.folder)
        self.folder = folder
        let camera = CameraSlot(), fps = FPSMeter()
        self.camera = camera
        self.fps = fps

        // The preview: one encoded stream, served over RTSP and WebRTC and to a publisher. It
        // relays the main encoding, or the preview's own (turned) one (`MainEncoding`).
        let stream = EncodedStream()
        self.stream = stream
        let turned = EncodedStream()
        let previewEncoder = OnDemandPreview(stream: turned, alwaysOn: !config.preview.onDemand, log: log)
        self.previewEncoder = previewEncoder
        let preview = try RTSPPreview(stream: stream, configuration: .init(
            address: config.preview.address, port: Int(config.preview.port), path: config.preview.path,
            credentials: config.preview.auth, stallTimeout: .seconds(config.preview.stallSeconds)),
            onConsumerDropped: { log("\($0)") })
        self.preview = preview
        let publisher = try config.publish.url.map { url in
            try RTSPPublisher(stream: stream, configuration: .init(url: url))
        }
        self.publisher = publisher
        // What captures are turned and tagged by.
        let coordination = RotationCoordinator.Configuration(
            mount: config.rotation.mount, facing: config.rotation.facing, hysteresis: config.rotation.hysteresis)
        let observer = RotationObserver(accelerometer: choices.sensor, configuration: coordination)
        self.observer = observer
        let location = LocationProvider(source: config.location.source,
                                        maxFixAge: .milliseconds(Int((config.location.maxFixAge * 1000).rounded()))) {
            log("location: \($0)")
        }
        self.location = location

        // What writes into the recordings folder, retention first: the writers keep it told.
        let codec = config.recording.codec
        let retention = Retention(policy: config.recording.retention, folder: folder, inUse: FilesInUse(),
                                  publish: publish, log: log)
        self.retention = retention
        // A finished clip may take the folder over its limits: retention looks at once.
        let eventClips = try EventClips(config: config.events, codec: codec, folder: folder, tracker: retention.inUse,
                                        retention: retention, camera: camera,
                                        publish: { event in
                                            publish(event)
                                            if case .eventClip = event { _ = retention.run(because: "an event clip saved") }
                                        }, log: log)
        self.eventClips = eventClips
        let mainEncoding = MainEncoding(preview: stream, turned: turned, recorder: eventClips.recorder,
                                        ringOn: config.events.preSeconds > 0, ownPreviewEncoder: !config.preview.onDemand,
                                        angle: observer.captureAngle, log: log)
        self.mainEncoding = mainEncoding
        // The recording's encoder runs the main encoding while it records.
        let recorder = ContinuousRecorder(
            settings: .init(folder: folder, codec: codec, segmentSeconds: config.recording.segmentSeconds,
                            splitOnRotation: config.rotation.splitOnRotation, location: location,
                            retention: retention, encoder: config.recording.encoder,
                            share: mainEncoding.share),
            publish: publish, log: log)
        self.recorder = recorder
        // Viewers whose offer takes the turn as RTP metadata get the main encoding's unturned
        // pixels — not with `letterbox`, which promises a size that never changes.
        let whep = WHEPPreview(stream: stream, unturned: config.preview.letterbox ? nil : mainEncoding.unturnedForWHEP,
                               configuration: .init(stun: config.webrtc.stun, maxViewers: config.webrtc.maxViewers)) {
            viewer, end in
            if end != .closed { log("webrtc: \(viewer) let go: \(end)") }
        }
        self.whep = whep
        eventClips.encoding.value = mainEncoding
        let encoders = EncoderStatus.choose(for: config)
        self.encoders = encoders
        // A named encoder that cannot run is a configuration error, not a silent fallback.
        if let problem = encoders.namedProblem(for: config) { throw ServeError(problem) }
        let rotationSource = choices.accelerometer.description
        let controls = CameraControlKeeper(config: config.camera.controls, publish: publish, log: log)
        self.controls = controls
        let backend = SessionBackend(camera: camera, recorder: recorder, folder: folder, codec: codec, fps: fps,
                                     location: location, retention: retention, clipEncoding: mainEncoding.clipEncoding,
                                     log: log) {
            var extras = SessionBackend.StatusExtras()
            extras.rtspClients = preview.clientCount
            extras.previewEncoder = mainEncoding.previewShares ? "shared" : previewEncoder.state.rawValue
            extras.rtspURL = preview.url
            extras.publish = publisher.map { "\($0.state)" }
            extras.rotationSource = rotationSource
            extras.encoders = encoders
            // WHEP viewers that take the turn as metadata are the main encoding's (`MainEncoding.feeds`).
            extras.previewFeeds = (preview.clientCount > 0 ? ["rtsp"] : [])
                + (whep.viewerCount > whep.metadataViewerCount ? ["whep"] : [])
                + (publisher.map { if case .connected = $0.state { true } else { false } } == true ? ["publish"] : [])
            extras.mainFeeds = mainEncoding.feeds(preview: extras.previewFeeds)
            if mainEncoding.previewShares { extras.previewFeeds = [] }
            extras.lastError = events.lastError.current
            extras.controls = controls.status
            return extras
        }
        self.backend = backend
        let scans = ScanService(config: config.scan, folder: folder, backend: backend, retention: retention,
                                publish: publish, log: log)
        self.scans = scans
        let motion = MotionService(config: config.motion, clips: eventClips, publish: publish, log: log)
        self.motion = motion

        // What watches the daemon: the wall clock, systemd.
        let clock = Self.watchClock(recorder: recorder, log: log)
        self.clock = clock
        systemd = try (notifier ?? SystemdNotifier.fromEnvironment()).map {
            Self.supervision(notifier: $0, camera: camera, recorder: recorder, preview: preview)
        }

        // Last, the control API over all of it.
        let warnings = Self.warnings(for: config)
        self.warnings = warnings
        let repairs = RepairReports()
        self.repairs = repairs
        let whepEndpoint = WHEPEndpoint(preview: whep)
        let api = ControlAPI(backend: backend, folder: folder, events: events, warnings: warnings, retention: retention,
                             status: .init(events: { eventClips.recorder.status }, webrtc: { whepEndpoint.status },
                                           clock: { clock.status }, repairs: { repairs.current },
                                           motion: { motion.status }))
        var router = api.router
        eventClips.addRoutes(to: &router)
        whepEndpoint.addRoutes(to: &router)
        ControlPage().addRoutes(to: &router)
        RecordingThumbnails(folder: folder).addRoutes(to: &router)
        // The page's cookie stands for the token; without a token there is nothing to stand for.
        let sessions = config.http.token.map { _ in SessionCookies() }
        PageSession(sessions: sessions).addRoutes(to: &router)
        scans.addRoutes(to: &router)
        ZoomRoutes(camera: camera).add(to: &router)
        MotionRoutes(camera: camera, motion: motion, location: location).add(to: &router)
        ControlsRoutes(camera: camera, keeper: controls).add(to: &router)
        CameraRoutes(camera: camera, observer: observer, defaultFacing: config.rotation.facing,
                     imageFolder: ImageFolder(path: config.camera.imageFolder), controls: controls,
                     publish: publish, log: log).add(to: &router)
        var options = HTTPServer.Options(bearerToken: config.http.token, sessions: sessions)
        options.allowedOrigins = Set(config.http.allowedOrigins)
        let httpLoop = MainContextThread(name: "plumb.http")
        self.httpLoop = httpLoop
        http = HTTPServer(router: router, context: httpLoop.context, options: options)
    }
    /// Repairs what a crash left in the recordings folder, then starts the servers, the
    /// rotation and the camera; returns once the camera was tried once (opened, or found
    /// unavailable — then it is retried in the background).
    /// - Throws: what keeps the daemon from serving at all: the recordings folder cannot
    ///   be made or another daemon holds it, an address is taken.
    public func start() async throws -> Addresses {
        guard !started else { throw CaptureError.invalidArgument("plumb serve is already started") }
        started = true
        try folder.create()
        do {
            folderLock = try FolderLock.acquire(folder.path)
        } catch {
            throw ServeError("\(error): give each plumb serve its own [recording] folder")
        }
        let events = eventClips.recoverLeftovers()
        let clips = backend.keepStaleClips()
        repairLeftovers(kept: Dictionary(uniqueKeysWithValues: events.map { ($0, "an event clip a crash cut, kept under its real name") }
                                         + clips.map { ($0, "a clip plumb serve ended before its client had it, kept under this name") }))
        keepRetention()

        let bound = try await http.start(listen: config.http.listen)
        for warning in warnings { log("warning: \(warning)") }
        do {
            try preview.start(on: rtspLoop.context)
        } catch {
            await http.stop()
            throw ServeError("cannot serve the RTSP preview on \(config.preview.address):\(config.preview.port): \(error); "
                             + "choose another [preview] port or stop what listens there")
        }
        await previewEncoder.start()
        await mainEncoding.start(angles: observer.captureAngles())
        if let publisher { watchPublisher(publisher) }
        // Before the camera: a fix may be in by the first capture (none is waited for).
        log("location: " + Self.sentence(for: config.location))
        for line in encoders.logLines { log(line) }
        location.start()
        followRotation()
        startClockWatch()
        switch await openCameraOnce() {
        case .failure(CaptureError.camera(let error)) where error.cause == .rateUnavailable:
            // A rate the camera has no mode for is a setting to fix, not an outage to wait out.
            await shutdown(reason: "plumb serve cannot start")
            throw ServeError("[camera] fps = \(config.camera.fps): camera \(error.device) cannot give it"
                             + (error.detail.map { " (\($0))" } ?? "") + "; set [camera] fps to one of its rates")
        case .failure(let refused as CameraControlKeeper.Refused):
            // So is a control value the camera refuses.
            await shutdown(reason: "plumb serve cannot start")
            throw ServeError("\(refused); see `plumb controls` for what the camera accepts")
        default: break
        }
        supervisor = Task { await self.superviseCamera() }
        if config.recording.continuous { await recorder.startContinuous() }
        await notifyReady()
        return Addresses(rtsp: preview.url, http: bound)
    }

    /// Where captures get their GPS, for the start-up lines.
    static func sentence(for location: ServeConfig.Location) -> String {
        switch location.source {
        case .off: return "off (stills and recordings carry no GPS; set [location] source)"
        case .fixed: return "\(location.source) for every still and recording"
        case .gpsd(let host, let port):
            let age = location.maxFixAge == location.maxFixAge.rounded() ? String(Int(location.maxFixAge))
                : String(location.maxFixAge)
            return "\(GPSDClient.name(host: host, port: port)), fixes up to \(age) s old"
        }
    }

    /// Before anything records: the recordings a crash left become normal MP4s, what holds
    /// nothing playable goes to `damaged/`; each change is logged and kept for `GET /status`,
    /// a file that could not be repaired is an `error` too. `kept`: the clips a crash left that
    /// were just given visible names, and why: they are reported even when whole.
    private func repairLeftovers(kept: [String: String] = [:]) {
        do {
            var reports = try FolderRepair.run(folder: folder.path)
            for i in reports.indices {
                if let why = kept[reports[i].file] { reports[i].detail = why + "; " + reports[i].detail }
                switch reports[i].action {
                case .leftAsIs where kept[reports[i].file] == nil: break
                case .failed: report("repair: \(reports[i].sentence())")
                default: log("repair: \(reports[i].sentence())")
                }
            }
            repairs.keep(reports.filter { $0.action != .leftAsIs || kept[$0.file] != nil })
        } catch {
            report("could not repair the recordings a crash left in \(folder.path): \(error)")
        }
    }

    /// Retention before anything records, then every `Retention.interval`; a recording that
    /// a full disk stopped resumes once there is room.
    private func keepRetention() {
        let retention = self.retention, recorder = self.recorder
        retention.run(because: "start-up")
        // Detached: a pass lists the folder, which need not hold the daemon's actor.
        watchers.append(Task.detached {
            while !Task.isCancelled {
                do { try await Task.sleep(for: Retention.interval) } catch { return }
                retention.run(because: "the timer")
                await recorder.resumeIfRoom()
            }
        })
        watchers.append(Task.detached {
            while !Task.isCancelled {
                do { try await Task.sleep(for: HeapTrim.interval) } catch { return }
                HeapTrim.now()
            }
        })
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
            let registration = retention.inUse.register(path: path)
            defer {
                registration.done()
                retention.run(because: "a still saved")
            }
            try AtomicFile.write(photo.jpeg, to: path)
            let name = URL(fileURLWithPath: path).lastPathComponent
            events.publish(.photoSaved(file: name, facts: photo.facts))
            log("still saved: \(path)")
        } catch {
            report("could not save a still: \(error)")
        }
    }

    /// SIGUSR2: an event clip (or a longer one, when one is being written) with the
    /// `[events]` pre- and post-seconds.
    public func saveEvent() async {
        do {
            _ = try await eventClips.trigger()
        } catch {
            report("could not record an event clip: \(error.message)")
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
        systemd?.stopping()
        clock.stop()
        supervisor?.cancel()
        for task in watchers { task.cancel() }
        motion.stop()
        let clips = backend.cutClips(because: reason)
        if clips > 0 { log("\(reason): cutting \(clips) clip\(clips == 1 ? "" : "s") short and answering them") }
        // No preview branch comes or goes from here on: consumers leaving is part of stopping.
        await previewEncoder.stop()
        await mainEncoding.stop()
        await recorder.shutdown()
        await eventClips.recorder.finish()
        if await !backend.waitForClips(limit: Self.clipDeliveryLimit) {
            report("a client did not take its clip within \(Self.clipDeliveryLimit): it is kept in the recordings folder")
        }
        preview.stop()
        publisher?.stop()
        events.channel.finishAll()
        await http.stop()
        let last = camera.current
        camera.set(.closed)
        if case .running(let session) = last { await session.close() }
        await supervisor?.value
        observer.stop()
        location.stop()
        whep.stop()
        stream.close()
        mainEncoding.turned.close()
        mainEncoding.unturned.close()
        mainEncoding.main.close()
        rtspLoop.stop()
        httpLoop.stop()
        folderLock = nil
    }

    // MARK: The camera

    /// One attempt to open the camera, attach the preview and resume a recording.
    private func openCamera() async -> Bool {
        if case .success = await openCameraOnce() { return true }
        return false
    }

    /// `openCamera`, with why it failed.
    private func openCameraOnce() async -> Result<Void, any Error> {
        do {
            var source = camera.switchedCamera ?? choices.camera
            if case .device(let device) = source { source = .device(device.refound(among: CameraDevice.all)) }
            // `[camera] fps` is met or refused, as `plumb record --fps` is: the preview's
            // keyframe interval and the recordings are made for it.
            let session = try await CaptureSession.open(source,
                                                        size: camera.switchedSize ?? config.camera.size,
                                                        rate: FrameRate(config.camera.fps), exactRate: true)
            guard !stopping else {
                await session.close()
                return .failure(CaptureError.closed)
            }
            let format = await session.format
            let encoding = PreviewEncoding(bitrate: config.preview.bitrate,
                                           keyframeInterval: max(1, Int((format.rate.perSecond * Double(config.preview.keyframeSeconds)).rounded())),
                                           canvas: config.preview.letterbox ? format.size : nil,
                                           encoder: config.preview.encoder)
            do {
                // The current angles at once (before the preview's first frame), then every change.
                try await session.follow(observer)
                try await previewEncoder.use(session, encoding: encoding)
                // The ring follows the main encoding (with pre-record all the time, else for each event clip).
                try await mainEncoding.use(session)
                try await scans.attach(to: session)
                try await motion.attach(to: session)
                try await session.setMaximumZoom(config.camera.maxZoom)
                if config.camera.zoom != 1 { try await session.setZoom(min(config.camera.zoom, config.camera.maxZoom)) }
                // After a reconnect a refused value is reported (the keeper did), not a reason to stay closed.
                if let refused = controls.cameraOpened(session), supervisor == nil { throw refused }
            } catch {
                await previewEncoder.release(session)
                await mainEncoding.release(session)
                await session.close()
                throw error
            }
            camera.set(.running(session))
            systemd?.refresh()
            lastProblem = nil
            log("camera open: \(session.camera.name), \(format)")
            await recorder.sessionOpened(session)
            return .success(())
        } catch {
            let why = "\(error)"
            camera.set(.unavailable(why))
            // At start (no supervisor yet) a rate the camera lacks ends the start instead.
            if supervisor == nil, case CaptureError.camera(let e) = error, e.cause == .rateUnavailable { return .failure(error) }
            if supervisor == nil, error is CameraControlKeeper.Refused { return .failure(error) }
            if why != lastProblem {
                lastProblem = why
                report("camera unavailable: \(why); retrying in the background")
            }
            return .failure(error)
        }
    }

    /// Watches the running session; reopens the camera when it fails or stalls.
    private func superviseCamera() async {
        var failures = 0
        let fps = self.fps
        while !stopping {
            if case .running(let session) = camera.current {
                let why = await StallWatchdog(limit: Self.stallLimit).watch(session) { fps.add(frames: $0) }
                guard !stopping, let why else { return }
                await lose(session, because: "\(why)")
                failures = 0
            }
            let backoff = Duration.seconds(min(30, 1 << min(failures, 5)))
            do { try await Task.sleep(for: backoff) } catch { return }
            guard !stopping else { return }
            failures = await openCamera() ? 0 : failures + 1
        }
    }

    /// A camera that sends no frame at all for this long is rebuilt.
    public static let stallLimit: Duration = .seconds(2)

    private func lose(_ session: CaptureSession, because why: String) async {
        camera.set(.unavailable(why))
        systemd?.refresh()
        lastProblem = why
        fps.reset()
        report("camera lost: \(why); reopening it")
        await recorder.sessionLost()
        await previewEncoder.release(session)
        await mainEncoding.release(session)
        await session.close()
        let held = await session.releasedDescriptors
        if held > 0 {
            log("camera \(session.camera.identifier): released \(held) descriptor\(held == 1 ? "" : "s") GStreamer still held of it")
        }
    }

    // MARK: Rotation

    /// Each session follows the observer itself (`openCamera`); the daemon only says each
    /// change of the capture angle on /events and in the log, from a stream of its own.
    private func followRotation() {
        let capture = observer.captureAngles()
        let reports = observer.reports()
        watchers.append(Task { [weak self] in
            for await angle in capture {
                guard let self else { return }
                self.announce(capture: angle)
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

    private nonisolated func announce(capture angle: RotationAngle) {
        events.publish(.orientationChanged(angle: angle.degrees))
        log("orientation: \(angle.degrees) degrees")
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
