import Dispatch
import FoundationEssentials
import Glibc
import GStreamer
import PlumbDescription
import PlumbLocation
import PlumbRotation
import Synchronization

/// One camera, opened once, fanned out through a `tee` to outputs that come and go
/// while it runs — AVFoundation's `AVCaptureSession` owned by AVCam's `CaptureService`
/// actor, on GStreamer.
///
/// ```
/// source -> [jpegdec] -> videoconvert -> I420 caps -> tee (allow-not-linked)
///                                                      |- queue -> fakesink          (permanent: keeps it running)
///                                                      |- [photo: queue -> appsink]
///                                                      |- [recording: queue -> x264enc -> h264parse -> mp4mux -> filesink]
///                                                      '- [preview: queue -> videoflip -> sink]
/// ```
///
/// The actor runs on its own `SessionExecutor`: one thread that runs the actor's jobs
/// and dispatches the pipeline's bus messages, so the two are serialized without locks.
/// Every method is safe to call from anywhere; errors are `CaptureError`.
public actor CaptureSession {
    /// The thread everything in the session runs on.
    public nonisolated let executor: SessionExecutor

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Where the frames come from now (`switchCamera(to:)` changes it).
    public nonisolated var camera: CameraSource { currentCamera.withLock { $0 } }
    nonisolated let currentCamera: Mutex<CameraSource>
    /// The source's elements, from the source to the one linked to the zoom crop.
    var sourceChain: [Element] = []
    /// What the camera was opened with, for the camera a switch opens.
    var encoding = ModeChooser.Preference.any
    /// Whether the rate asked for must be met (`open(exactRate:)`): no nearest rate instead.
    var exactRate = false
    /// A `switchCamera(to:)` under way (AVCam's `isSwitchingVideoDevices`): the tee has no
    /// frames meanwhile, which a stall watchdog must not take for a lost camera.
    public var isSwitchingCamera: Bool { state.isSwitchingCamera }
    /// Frames in time order across camera switches.
    var timeline: SwitchTimeline?

    /// What the tee carries, once open.
    public internal(set) var format: CaptureFormat

    /// The capture angle: what stills and recordings get (as metadata), now and when
    /// attached later. Set by `setRotation` or by a followed `RotationObserver`.
    public internal(set) var rotation: RotationAngle = .degrees0

    /// The preview angle: what outputs that turn pixels for a display get
    /// (`CaptureOutput.usesPreviewAngle`). Equal to `rotation` unless set apart.
    public internal(set) var previewRotation: RotationAngle = .degrees0

    /// What a failed session died of; nil while it runs.
    public var failure: CaptureError? { state.failure }

    /// Starting, running (with the recordings moving to their next files, a camera switch),
    /// failed or closed: every event goes through it (`CaptureSessionState`).
    var state = CaptureSessionState.starting
    var pipeline: Pipeline?
    /// An MJPEG camera's JPEG frames before decoding, for stills without re-encoding.
    nonisolated let cameraJPEG = CameraJPEGTap()
    var tee: Element?
    private var bus: BusSubscription?
    var branches: [ObjectIdentifier: Branch] = [:]
    private var branchCount = 0
    /// The head of the next branch, made ahead of its request.
    var spare: BranchHead?
    /// Names of the branches taken down last, to recognise their late bus messages
    /// (those come within moments, so a short memory is enough for a service that runs for months).
    private var retired: [String] = []
    /// Teardowns started from the bus (a failure), which `close()` must let finish: tasks to
    /// wait for, not state (`state` says what the session does).
    var inFlight: [String: Task<Void, Never>] = [:]
    private var photos: PhotoOutput?
    let frames = FrameCounter()
    private var firstFrame: OneShot<Void>?
    /// What applies a followed observer's angles (see `follow(_:)`).
    var following: RotationFollower?
    /// Recordings rolling over (on time or on rotation): the task moving each to its next
    /// segment, by chain (a roll of `state`), one at a time per recording, for the next roll,
    /// a stop and `close()` to wait for.
    var rolls: [ObjectIdentifier: Task<Void, Never>] = [:]
    /// The digital zoom between the source and the tee (`CaptureSession+Zoom`).
    var zoomCrop: ZoomCrop?
    var maximumZoom = CaptureSession.defaultMaximumZoom
    /// The V4L2 camera's `zoom_absolute`, used before the crop (`V4L2ZoomControl`), and the
    /// factor it was last set to.
    var zoomControl: V4L2ZoomControl?
    var opticalZoom: Double?
    /// The V4L2 camera's device number, for letting go of it once it is lost.
    var deviceNumber: dev_t?
    /// Descriptors of the lost camera GStreamer still held when the session closed, which
    /// `close()` released (see `DeviceDescriptors`).
    public private(set) var releasedDescriptors = 0

    private init(camera: CameraSource, format: CaptureFormat, executor: SessionExecutor) {
        self.currentCamera = Mutex(camera)
        self.format = format
        self.executor = executor
    }

    deinit {
        // Normally `close()` has run; otherwise stop the camera here (any thread may).
        if let pipeline, !state.isClosed { try? pipeline.setState(.null) }
        following?.stop()
        bus?.cancel()
        executor.stop()
    }

    // MARK: Opening and closing

    /// Opens `camera` at `size` and `fps` frames per second; see `open(_:size:rate:timeout:)`.
    public static func open(camera: CameraSource = .testPattern(), size: VideoSize = .vga,
                            fps: Int = 30) async throws -> CaptureSession {
        try await open(camera, size: size, rate: FrameRate(fps))
    }

    /// Opens `camera` and waits for its first frame.
    ///
    /// - Parameters:
    ///   - size: the frame size asked for; a camera that lacks it gets the nearest it offers
    ///     (see `ModeChooser`); the test pattern makes any size.
    ///   - rate: frames per second asked for, with the same fallback.
    ///   - encoding: raw or MJPEG from a camera that offers both (ignored when it offers one).
    ///   - exactRate: a camera whose modes lack `rate` at the chosen size is
    ///     `CameraError.Cause.rateUnavailable` (naming the rates it has) instead of opening at
    ///     the nearest; the test pattern and an image camera make any rate.
    ///   - timeout: the most the opening may take; a camera that sends nothing by then is
    ///     `CameraError.Cause.noFrames`. nil: `CameraSource.firstFrameLimit` (longer for a
    ///     real camera than for the test pattern).
    /// - Throws: `CaptureError.camera` naming the device and the cause (missing, not a
    ///   device, not a capture device, busy, permission denied, no usable format, no frames).
    public static func open(_ camera: CameraSource = .testPattern(), size: VideoSize = .vga,
                            rate: FrameRate = FrameRate(30), encoding: ModeChooser.Preference = .any,
                            exactRate: Bool = false, timeout: Duration? = nil) async throws -> CaptureSession
    {
        let timeout = timeout ?? camera.firstFrameLimit
        guard size.width > 0, size.height > 0, size.width <= 16384, size.height <= 16384 else {
            throw CaptureError.invalidArgument("size \(size) is out of range (1x1 to 16384x16384)")
        }
        guard rate.perSecond > 0, rate.perSecond <= 1000 else {
            throw CaptureError.invalidArgument("frame rate \(rate) is out of range (above 0, at most 1000)")
        }
        do { try Gst.initialize() } catch { throw CaptureError.pipeline(PipelineFailure(error)) }
        let executor = SessionExecutor(name: "plumb.session")
        let session = CaptureSession(camera: camera, format: CaptureFormat(size: size, rate: rate),
                                     executor: executor)
        // Started from a separate task and awaited through a one-shot with a deadline, so a
        // driver that blocks the session's thread cannot hang the caller.
        let opened = OneShot<Void>()
        Task {
            do {
                await session.requireExactRate(exactRate)
                try await session.start(size: size, rate: rate, encoding: encoding, timeout: timeout)
                opened.succeed(())
            } catch {
                opened.fail(error)
            }
        }
        do {
            try await opened.value(timeout: timeout + .seconds(1), what: "opening \(camera.identifier)")
            return session
        } catch {
            Task { await session.close() }
            if case CaptureError.timedOut = error {
                throw CaptureError.camera(CameraError(device: camera.identifier, cause: .noFrames,
                                                      detail: "nothing within \(timeout)"))
            }
            throw error
        }
    }

    /// Detaches every output (recordings are finalized) and stops the camera. Idempotent.
    public func close() async {
        guard let waiters = state.close() else { return }
        for waiter in waiters { waiter.succeed(()) }
        stopFollowing()
        for branch in Array(branches.values) {
            branches[ObjectIdentifier(branch.output)] = nil
            await teardown(branch, drain: true, error: nil)
        }
        for task in Array(rolls.values) { await task.value }
        for task in Array(inFlight.values) { await task.value }
        if let spare, let pipeline { spare.discard(from: pipeline) }
        spare = nil
        photos = nil
        if let pipeline { try? pipeline.setState(.null) }
        // A camera that failed while streaming may still be held by GStreamer's v4l2 buffer
        // pool; nothing of this session uses it any more: the driver gets it back.
        if failure != nil, let deviceNumber { releasedDescriptors = DeviceDescriptors.release(deviceNumber) }
        bus?.cancel()
        bus = nil
        frames.failAll(CaptureError.closed)
        firstFrame?.fail(CaptureError.closed)
    }

    public var isRunning: Bool { state.isRunning }

    // MARK: Outputs

    /// Attaches an output as a new tee branch while the camera runs. The branch gets the
    /// current rotation before its first frame. No other branch loses a frame.
    public func attach(_ output: any CaptureOutput) throws {
        guard state.isRunning else { throw failure ?? CaptureError.closed }
        guard branches[ObjectIdentifier(output)] == nil else { throw CaptureError.alreadyAttached(output.kind) }
        // Linked to the tee at once: the branch collects every frame from the request on
        // while the rest of it is built.
        let (branch, requestTime) = try buildBranch(for: output, linkedAtOnce: true)
        branches[ObjectIdentifier(output)] = branch
        output.didAttach(requestTime: requestTime)
        open(branch)
    }

    /// Drains and removes an output's branch: the tee stops feeding it at an idle moment,
    /// EOS goes into that branch only (a recording is finalized), then it is taken down.
    /// The camera and the other branches keep running.
    public func detach(_ output: any CaptureOutput) async throws {
        guard let branch = branches.removeValue(forKey: ObjectIdentifier(output)) else {
            throw CaptureError.notAttached(output.kind)
        }
        if photos === output { photos = nil }
        await teardown(branch, drain: true, error: nil)
    }

    /// The kinds of the attached outputs' branches, e.g. ["photo1", "recording2"].
    public var attachedBranches: [String] { branches.values.map(\.name).sorted() }

    /// Sets both angles for every output, now and for those attached later.
    public func setRotation(_ angle: RotationAngle) {
        setRotation(RotationAngles(capture: angle, preview: angle))
    }

    /// Sets the capture angle (stills, recordings) and the preview angle (outputs that turn
    /// pixels for a display) apart, now and for outputs attached later.
    public func setRotation(_ angles: RotationAngles) {
        rotation = angles.capture
        previewRotation = angles.preview
        for branch in branches.values { apply(to: branch.output) }
        rollOverRecordingsIfTurned()
    }

    /// Gives an output the angle it follows.
    func apply(to output: any CaptureOutput) {
        output.apply(rotation: output.usesPreviewAngle ? previewRotation : rotation)
    }

    // MARK: Stills and recordings

    /// A JPEG of the next frame, with EXIF (Make/Model, DateTimeOriginal, Orientation from
    /// the current rotation, GPS when `location` is given). The session keeps running.
    /// Concurrent requests are served in order; those waiting for the same frame share it.
    /// `marks` (rectangles of the upright picture) are drawn on it (`PhotoOutput.takePhoto`).
    public func takePhoto(quality: Int = 90, location: GeoLocation? = nil, marks: [NormalizedRect] = [],
                          timeout: Duration = .seconds(10)) async throws -> Photo {
        let output = try photoOutput()
        return try await output.takePhoto(quality: quality, location: location, marks: marks, timeout: timeout)
    }

    /// Starts recording to `url` (MP4, fragmented so a crash keeps all but the last
    /// fragment). The file starts with a keyframe made for this request.
    /// - Throws: `CaptureError.unwritable` for a path that cannot be written,
    ///   `CaptureError.noEncoder` when no H.264 or H.265 encoder is installed.
    public func startRecording(to url: URL, codec: VideoCodec = .h264,
                               options: RecordingOptions = RecordingOptions()) throws -> Recording {
        let output = try RecordingOutput(url: url, codec: codec, options: options)
        try attach(output)
        return Recording(session: self, output: output)
    }

    /// Waits until `count` more frames have entered the tee (exposure settling by frames).
    public func waitForFrames(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        guard state.isRunning else { throw failure ?? CaptureError.closed }
        _ = try await frames.after(count).value(timeout: timeout, what: "\(count) frames")
    }

    /// Frames that entered the tee since the camera started.
    public var frameCount: Int { frames.count }

    /// Frames missing between those that entered the tee since the camera started: gaps in
    /// the camera's sequence numbers (or, without them, in its timestamps against the
    /// rate). A camera switch's own pause is not counted.
    public nonisolated var framesLost: Int { frames.lost }

    /// The pipeline's running time now (the clock buffers are stamped against).
    public var runningTime: ClockTime? { pipeline?.runningTime }

    /// Every element in the pipeline, for tests that prove branches leave nothing behind.
    public var elementCount: Int { pipeline?.allElements.count ?? 0 }

    /// The tee's source pads (the permanent one plus one per attached branch).
    public var teePadCount: Int { tee?.pads.filter { $0.direction == .src }.count ?? 0 }

    /// The bin of an attached output's branch (tests watch it being finalized).
    func branchBin(for output: any CaptureOutput) -> Bin? { branches[ObjectIdentifier(output)]?.bin }

    /// An element of the session's pipeline by name ("src", "tee"), for tests.
    func element(named name: String) -> Element? { pipeline?.element(named: name) }

    /// The session's own photo output, once a photo has been taken.
    var photoOutputIfAttached: PhotoOutput? { photos }

    // MARK: - Start-up

    private func requireExactRate(_ exact: Bool) { exactRate = exact }

    private func start(size: VideoSize, rate: FrameRate, encoding: ModeChooser.Preference,
                       timeout: Duration) async throws {
        let pipeline: Pipeline
        let tee: Element
        do {
            pipeline = try Pipeline(name: "plumb-session")
            tee = try Element(factory: "tee", name: "tee")
            try tee.set("allow-not-linked", true)
        } catch {
            throw CaptureError.wrap(error)
        }
        self.pipeline = pipeline
        self.tee = tee
        bus = pipeline.watchBus(on: executor.context) { [weak self] message in
            // Bus watches are dispatched by the executor's own thread, between jobs.
            self?.assumeIsolated { $0.handle(message) }
        }
        let first = OneShot<Void>()
        firstFrame = first

        let sourceChain = try makeSource(camera, size: size, rate: rate, encoding: encoding, in: pipeline)
        self.sourceChain = sourceChain
        self.encoding = encoding
        findZoomControl(of: camera)
        do {
            let zoom = try ZoomCrop(format: format)
            zoomCrop = zoom
            cameraJPEG.follow(zoom)
            timeline = SwitchTimeline(on: zoom.crop.staticPad("sink")!, rate: format.rate)
            try pipeline.add(zoom.crop, zoom.scale, zoom.caps, tee)
            try sourceChain.last!.link(to: zoom.crop)
            try zoom.crop.link(to: zoom.scale)
            try zoom.scale.link(to: zoom.caps)
            try zoom.caps.link(to: tee)
            // The permanent branch: keeps the tee flowing (and the camera running) with no outputs.
            let keep = try Element(factory: "queue", name: "keepalive-queue")
            try keep.set("leaky", EnumNick("downstream"))
            try keep.set("max-size-buffers", 2)
            try keep.set("max-size-bytes", 0)
            try keep.set("max-size-time", 0)
            let sink = try Element(factory: "fakesink", name: "keepalive")
            try sink.set("sync", false)
            try sink.set("async", false)
            try sink.set("enable-last-sample", false)
            try pipeline.add(keep, sink)
            try tee.requestPad("src_%u").link(to: keep.staticPad("sink")!)
            try keep.link(to: sink)
        } catch {
            throw CaptureError.wrap(error)
        }

        let frames = self.frames
        frames.restartGaps(rate: format.rate, numbered: camera.numbersItsFrames)
        tee.staticPad("sink")!.addProbe(.buffer) { pad, info in
            let time = info.bufferPTS.map { pad.runningTime(of: $0) ?? $0 }
            // Only the first frame touches the one-shot: no second lock on every frame.
            if frames.frame(offset: info.bufferOffset, time: time) == 1 { first.succeed(()) }
            return .ok
        }

        do {
            try pipeline.setState(.playing, timeout: timeout)
        } catch {
            throw cameraError(error)
        }
        try await first.value(timeout: timeout, what: "the first frame from \(camera.identifier)")
        firstFrame = nil
        spare = try? makeHead()
        guard state.opened() else { throw failure ?? CaptureError.closed }
    }

    /// The source elements, added to the pipeline and linked; the last one feeds the tee.
    func makeSource(_ camera: CameraSource, size: VideoSize, rate: FrameRate, encoding: ModeChooser.Preference,
                            in pipeline: Pipeline) throws -> [Element] {
        switch camera {
        case .testPattern(let pattern):
            do {
                let src = try Element(factory: "videotestsrc", name: "src")
                try src.set("is-live", true)
                try src.set("pattern", EnumNick(pattern.videotestsrcPattern))
                if pattern == .smpte { try src.set("horizontal-speed", 4) }
                format = CaptureFormat(size: size, rate: rate)
                let caps = try Element(factory: "capsfilter", name: "src-caps")
                try caps.set("caps", try Caps(format.caps))
                var chain = [src, caps]
                // The running time on every frame: a frozen or restarted pipeline shows.
                if Gst.hasElement("timeoverlay") {
                    let overlay = try Element(factory: "timeoverlay", name: "clock-overlay")
                    try overlay.set("time-mode", EnumNick("running-time"))
                    chain.append(overlay)
                }
                // Last, so nothing is drawn over the clock.
                if pattern == .clock { Self.stampClock(on: chain.last!, size: size) }
                try pipeline.add(chain)
                for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
                return chain
            } catch {
                throw CaptureError.wrap(error)
            }
        case .mjpegTestPattern:
            do {
                let src = try Element(factory: "videotestsrc", name: "src")
                try src.set("is-live", true)
                let raw = try Element(factory: "capsfilter", name: "sensor-caps")
                try raw.set("caps", try Caps("video/x-raw,format=I420,width=\(size.width),height=\(size.height),framerate=\(rate)"))
                let jpeg = try Element(factory: "jpegenc", name: "camera-jpeg")
                try pipeline.add(src, raw, jpeg)
                try src.link(to: raw)
                try raw.link(to: jpeg)
                let mode = CameraMode(encoding: .mjpeg, size: size, rate: rate)
                return [src, raw] + (try attachModeChain(after: jpeg, mode: mode, in: pipeline))
            } catch {
                throw CaptureError.wrap(error)
            }
        case .device(let device):
            do {
                deviceNumber = try device.checkNode()
            } catch {
                throw CaptureError.camera(error)
            }
            do {
                let src = try Element(factory: "v4l2src", name: "src")
                try src.set("device", device.path)
                return try negotiate(src, camera: device.path, size: size, rate: rate, encoding: encoding, in: pipeline)
            } catch let error as GStreamerError {
                throw CaptureError.camera(CameraError(device: device.path, gstreamer: error))
            } catch {
                throw CaptureError.wrap(error)
            }
        case .image(let image):
            do {
                format = CaptureFormat(size: size, rate: rate)
                return try image.makeChain(format: format, in: pipeline)
            } catch {
                throw CaptureError.wrap(error)
            }
        case .libcamera(let id):
            let name = camera.identifier
            guard Gst.hasElement("libcamerasrc") else {
                throw CaptureError.camera(CameraError(device: name, cause: .notFound,
                                                      detail: "libcamerasrc is missing: install gstreamer1.0-libcamera"))
            }
            do {
                let src = try Element(factory: "libcamerasrc", name: "src")
                try src.set("camera-name", id)
                return try negotiate(src, camera: name, size: size, rate: rate, encoding: encoding, in: pipeline)
            } catch let error as GStreamerError {
                throw CaptureError.camera(CameraError(device: name, gstreamer: error))
            } catch {
                throw CaptureError.wrap(error)
            }
        }
    }

    /// Opens a camera's source element (READY: v4l2src opens the node, libcamerasrc acquires
    /// the camera), picks the mode from the caps it then offers, and links it to the tee's
    /// caps: `src ! mode caps ! [JPEG decoder] ! videoconvert ! tee caps`.
    private func negotiate(_ src: Element, camera name: String, size: VideoSize, rate: FrameRate,
                           encoding: ModeChooser.Preference, in pipeline: Pipeline) throws -> [Element] {
        try pipeline.add(src)
        do {
            try src.setState(.ready, timeout: .seconds(3))
        } catch {
            throw CaptureError.camera(CameraError(device: name, gstreamer: error))
        }
        let offered = src.staticPad("src")!.queryCaps()
        let modes = ModeChooser.modes(in: offered, requested: size, rate: rate)
        guard let mode = ModeChooser.choose(from: modes, size: size, rate: rate, encoding: encoding) else {
            throw CaptureError.camera(CameraError(device: name, cause: .noUsableFormat, detail: "it offers \(offered)"))
        }
        if exactRate, let problem = ModeChooser.rateProblem(chosen: mode, offered: offered, rate: rate) {
            throw CaptureError.camera(CameraError(device: name, cause: .rateUnavailable, detail: problem))
        }
        return try attachModeChain(after: src, mode: mode, in: pipeline)
    }

    /// `source ! mode caps ! [JPEG decoder] ! videoconvert ! tee caps`, added and linked;
    /// the source (already in the pipeline) first. An MJPEG mode's JPEGs are tapped before
    /// the decoder (`cameraJPEG`).
    private func attachModeChain(after source: Element, mode: CameraMode, in pipeline: Pipeline) throws -> [Element] {
        format = CaptureFormat(size: mode.size, rate: mode.rate, cameraMode: mode)
        let modeCaps = try Element(factory: "capsfilter", name: "src-caps")
        try modeCaps.set("caps", try Caps(mode.caps))
        var chain = [source, modeCaps]
        cameraJPEG.clear()
        if mode.isMJPEG {
            let decoder = try Element(factory: JPEGDecoderChoice.choose().decoder, name: "decode")
            cameraJPEG.install(on: decoder)
            chain.append(decoder)
        }
        chain.append(try Element(factory: "videoconvert", name: "convert"))
        let rawCaps = try Element(factory: "capsfilter", name: "tee-caps")
        try rawCaps.set("caps", try Caps(format.caps))
        chain.append(rawCaps)
        try pipeline.add(Array(chain.dropFirst()))
        for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
        return chain
    }

    private func cameraError(_ error: any Error) -> CaptureError {
        if let e = error as? CaptureError { return e }
        guard let g = error as? GStreamerError else { return CaptureError.pipeline(PipelineFailure(message: "\(error)")) }
        return .camera(CameraError(device: camera.identifier, gstreamer: g, streaming: state.isRunning))
    }

    // MARK: - Bus

    /// Runs on the executor's thread (dispatched between jobs), isolated to the session.
    private func handle(_ message: BusMessage) {
        switch message {
        case .error(let error):
            if let branch = branches.values.first(where: { $0.contains(path: error.source) }) {
                // A branch failed: only that branch goes; the camera keeps running.
                branch.flowGuard.trip()
                branches[ObjectIdentifier(branch.output)] = nil
                if photos === branch.output { photos = nil }
                let failure = CaptureError.branch(branch.output.kind, failed: error, in: branch.bin)
                startTeardown(branch, drain: false, error: failure)
            } else if retired.contains(where: { Branch.path(error.source, isInBranchNamed: $0) })
                        || spare.map({ Branch.path(error.source, isInBranchNamed: $0.name) }) == true {
                // A later message from a branch already taken down (its queue reporting the
                // flow error the first one caused), or from the unused spare head.
                break
            } else {
                fail(cameraError(error))
            }
        default:
            break
        }
    }

    /// The camera side failed: everything stops, every waiter hears why. The branches are
    /// intact, so they are drained first: recordings are finalized with what they got.
    private func fail(_ error: CaptureError) {
        guard let waiters = state.fail(error) else { return }
        for waiter in waiters { waiter.succeed(()) }
        firstFrame?.fail(error)
        frames.failAll(error)
        for branch in Array(branches.values) {
            branches[ObjectIdentifier(branch.output)] = nil
            startTeardown(branch, drain: true, error: error)
        }
        photos = nil
    }

    // MARK: - Branches

    private func photoOutput() throws -> PhotoOutput {
        if let photos { return photos }
        let output = PhotoOutput()
        output.cameraJPEG = format.cameraMode?.isMJPEG == true ? cameraJPEG : nil
        output.zoom = zoomCrop
        try attach(output)
        photos = output
        return output
    }

    /// A new branch head named "branchN", in the pipeline and ready.
    func makeHead() throws -> BranchHead {
        guard let pipeline else { throw CaptureError.closed }
        branchCount += 1
        return try BranchHead(name: "branch\(branchCount)", in: pipeline)
    }

    /// The spare head (or a new one), sized for `output`'s queue; the spare is used up.
    func takeHead(for output: any CaptureOutput) throws -> BranchHead {
        do {
            let head = try spare ?? makeHead()
            spare = nil
            try head.setLimit(output.queueLimit)
            return head
        } catch {
            throw CaptureError.wrap(error)
        }
    }

    /// Builds `output`'s elements behind `head`'s queue and brings them to the bin's state
    /// (PLAYING) while the blocked queue holds the frames back; returns the branch's sink.
    func buildOutput(_ output: any CaptureOutput, after head: BranchHead) throws -> Element {
        let ends = try output.build(in: head.bin, format: format, camera: camera)
        if ends.sink.hasProperty("async") { try ends.sink.set("async", false) }
        try head.queue.link(to: ends.entry)
        for child in head.bin.children where child.name != head.queue.name {
            try child.syncStateWithParent()
        }
        return ends.sink
    }

    /// Builds the branch for `output` — the one way every branch is made: the head (made
    /// ahead), a new tee pad, the output's elements brought up to PLAYING behind the head's
    /// blocked queue, the flow guard, the output's angle. Nothing passes the head until
    /// `open(_:)`. `linkedAtOnce`: the tee pad is linked to the head before the output's
    /// elements are built, so the frames from the request on wait in the head (the
    /// returned time is the request's running time); otherwise it is left unlinked for
    /// `swap` to link between two frames. A failure is undone by `discard`, and thrown.
    func buildBranch(for output: any CaptureOutput, linkedAtOnce: Bool) throws -> (Branch, requestTime: ClockTime?) {
        guard let pipeline, let tee else { throw CaptureError.closed }
        let head = try takeHead(for: output)
        output.willReceiveFrames(at: head.entry, format: format, numbered: camera.numbersItsFrames)
        var teePad: Pad?
        do {
            let pad = try tee.requestPad("src_%u")
            teePad = pad
            var requestTime: ClockTime?
            if linkedAtOnce {
                requestTime = pipeline.runningTime
                try pad.link(to: head.entry)
            }
            let sink = try buildOutput(output, after: head)
            let branch = Branch(output: output, head: head, teePad: pad, sink: sink)
            branch.flowGuard.install(on: pad, queueSource: head.queueSource)
            // The current angle before the first frame.
            apply(to: output)
            return (branch, requestTime)
        } catch {
            discard(head, teePad: teePad, of: output)
            throw CaptureError.wrap(error)
        }
    }

    /// Lets the frames into a built branch, then makes the next request's head while
    /// nothing waits for it.
    func open(_ branch: Branch) {
        branch.head.open()
        if spare == nil { spare = try? makeHead() }
    }

    /// Takes out a branch no frame has passed into (its build failed, or its swap did): the
    /// tee must not keep a pad into a dead branch, the head and its bin go, and so does an
    /// empty file a recording's sink opened. The bus may still bring this branch's error:
    /// it is recognised as retired, not the camera's.
    func discard(_ head: BranchHead, teePad: Pad?, of output: any CaptureOutput) {
        guard let pipeline, let tee else { return }
        retire(head.name)
        if let teePad {
            teePad.unlink(head.entry)
            tee.releaseRequestPad(teePad)
        }
        head.discard(from: pipeline)
        if spare == nil { spare = try? makeHead() }
        output.didDiscard()
        Self.removeUnrecorded(output)
    }

    /// Removes the file of a recording no frame reached: empty, or mp4mux's header alone (an
    /// empty track no reader opens, which the start-up repair would move to damaged/).
    private static func removeUnrecorded(_ output: any CaptureOutput) {
        guard let recording = output as? RecordingOutput, recording.progress.frames == 0 else { return }
        try? FileManager.default.removeItem(at: recording.url)
    }

    /// How long a branch may take to drain after EOS before it is taken down anyway
    /// (a fragmented recording keeps what it wrote either way).
    private static let drainLimit: Duration = .seconds(10)

    func retire(_ name: String) {
        retired.append(name)
        if retired.count > 64 { retired.removeFirst(retired.count - 64) }
    }

    /// Starts a teardown from a bus message (not awaited there: the bus must keep flowing).
    func startTeardown(_ branch: Branch, drain: Bool, error: (any Error)?) {
        let name = branch.name
        inFlight[name] = Task {
            await self.teardown(branch, drain: drain, error: error)
            self.inFlight[name] = nil
        }
    }

    /// Takes a branch down. `drain`: EOS first, so a recording is finalized (not for a
    /// branch that failed itself: its elements would not pass EOS on). `error` goes to the
    /// output as the reason it ended.
    func teardown(_ branch: Branch, drain: Bool, error: (any Error)?) async {
        guard let pipeline, let tee else { return }
        // 1. Unlink at a moment the tee is not pushing into this pad (IDLE probe). Unlinking
        //    is what such probes are for; state changes wait for the executor below.
        retire(branch.name)
        let unlinked = OneShot<Void>()
        let teePad = branch.teePad, entry = branch.entry
        teePad.addProbe(.idle) { _ in
            teePad.unlink(entry)
            unlinked.succeed(())
            return .remove
        }
        var drainError: (any Error)? = nil
        do {
            try await unlinked.value(timeout: .seconds(5), what: "unlinking \(branch.name)")
        } catch {
            teePad.unlink(entry)
            drainError = error
        }

        // 2. EOS into this branch only, then wait for it at the branch's sink (a pad probe:
        //    the bus reports EOS only for the whole pipeline).
        if drain && !branch.failed, let sinkPad = branch.sink.staticPad("sink") {
            let drained = OneShot<Void>()
            let probe = sinkPad.addProbe(.eventDownstream) { info in
                if info.isEOS { drained.succeed(()) }
                return .ok
            }
            entry.send(.eos)
            do {
                try await drained.value(timeout: Self.drainLimit, what: "draining \(branch.name)")
            } catch {
                drainError = error
            }
            sinkPad.removeProbe(probe)
        }

        // 3. Down, out, and the tee's pad back.
        do {
            try branch.bin.setState(.null)
        } catch {
            drainError = drainError ?? CaptureError.pipeline(PipelineFailure(error))
        }
        try? pipeline.remove(branch.bin)
        tee.releaseRequestPad(teePad)
        Self.removeUnrecorded(branch.output)
        branch.output.didDetach(error: error ?? drainError)
    }
}
