import Foundation
import GStreamer

/// One camera, opened once, fanned out through a `tee` to outputs that come and go
/// while it runs — AVFoundation's `AVCaptureSession` owned by AVCam's `CaptureService`
/// actor, on GStreamer.
///
/// ```
/// source -> [jpegdec] -> videoconvert -> I420 caps -> tee (allow-not-linked)
///                                                      |- queue -> fakesink          (permanent: keeps it running)
///                                                      |- [photo: queue -> appsink]
///                                                      |- [movie: queue -> x264enc -> h264parse -> mp4mux -> filesink]
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

    /// Where the frames come from.
    public nonisolated let camera: CameraSource

    /// What the tee carries, once open.
    public private(set) var format: CaptureFormat

    /// The capture angle: what stills and recordings get (as metadata), now and when
    /// attached later. Set by `setRotation` or by a followed `RotationObserver`.
    public internal(set) var rotation: RotationAngle = .degrees0

    /// The preview angle: what outputs that turn pixels for a display get
    /// (`CaptureOutput.usesPreviewAngle`). Equal to `rotation` unless set apart.
    public internal(set) var previewRotation: RotationAngle = .degrees0

    /// What a failed session died of; nil while it runs.
    public private(set) var failure: CaptureError?

    enum Phase { case starting, running, failed, closed }

    var phase = Phase.starting
    var pipeline: Pipeline?
    var tee: Element?
    private var bus: BusSubscription?
    var branches: [ObjectIdentifier: Branch] = [:]
    private var branchCount = 0
    /// The head of the next branch, made ahead of its request.
    var spare: BranchHead?
    /// Names of the branches taken down last, to recognise their late bus messages
    /// (those come within moments, so a short memory is enough for a service that runs for months).
    private var retired: [String] = []
    /// Teardowns started from the bus (a failure), which `close()` must let finish.
    var inFlight: [String: Task<Void, Never>] = [:]
    private var photos: PhotoOutput?
    private let frames = FrameCounter()
    private var firstFrame: OneShot<Void>?
    /// The task applying a followed observer's angles (see `follow(_:)`).
    var following: Task<Void, Never>?
    /// Observers followed so far: each one's streams have a single consumer.
    var followed: Set<ObjectIdentifier> = []
    /// Recordings splitting on rotation: the task moving each to its next file, by chain.
    var splits: [ObjectIdentifier: Task<Void, Never>] = [:]

    private init(camera: CameraSource, format: CaptureFormat, executor: SessionExecutor) {
        self.camera = camera
        self.format = format
        self.executor = executor
    }

    deinit {
        // Normally `close()` has run; otherwise stop the camera here (any thread may).
        if let pipeline, phase != .closed { try? pipeline.setState(.null) }
        following?.cancel()
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
    ///   - timeout: the most the opening may take; a camera that sends nothing by then is
    ///     `CameraError.Cause.noFrames`.
    /// - Throws: `CaptureError.camera` naming the device and the cause (missing, not a
    ///   device, not a capture device, busy, permission denied, no usable format, no frames).
    public static func open(_ camera: CameraSource = .testPattern(), size: VideoSize = .vga,
                            rate: FrameRate = FrameRate(30), encoding: ModeChooser.Preference = .any,
                            timeout: Duration = .seconds(5)) async throws -> CaptureSession
    {
        guard size.width > 0, size.height > 0, size.width <= 16384, size.height <= 16384 else {
            throw CaptureError.invalidArgument("size \(size) is out of range (1x1 to 16384x16384)")
        }
        guard rate.perSecond > 0, rate.perSecond <= 1000 else {
            throw CaptureError.invalidArgument("frame rate \(rate) is out of range (above 0, at most 1000)")
        }
        do { try Gst.initialize() } catch { throw CaptureError.pipeline(error) }
        let executor = SessionExecutor(name: "plumb.session")
        let session = CaptureSession(camera: camera, format: CaptureFormat(size: size, rate: rate),
                                     executor: executor)
        // Started from a separate task and awaited through a one-shot with a deadline, so a
        // driver that blocks the session's thread cannot hang the caller.
        let opened = OneShot<Void>()
        Task {
            do {
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
        guard phase != .closed else { return }
        phase = .closed
        stopFollowing()
        for branch in Array(branches.values) {
            branches[ObjectIdentifier(branch.output)] = nil
            await teardown(branch, drain: true, error: nil)
        }
        for task in Array(splits.values) { await task.value }
        for task in Array(inFlight.values) { await task.value }
        if let spare, let pipeline { spare.discard(from: pipeline) }
        spare = nil
        photos = nil
        if let pipeline { try? pipeline.setState(.null) }
        bus?.cancel()
        bus = nil
        frames.failAll(CaptureError.closed)
        firstFrame?.fail(CaptureError.closed)
    }

    public var isRunning: Bool { phase == .running }

    // MARK: Outputs

    /// Attaches an output as a new tee branch while the camera runs. The branch gets the
    /// current rotation before its first frame. No other branch loses a frame.
    public func attach(_ output: any CaptureOutput) throws {
        _ = try attachBranch(output)
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

    /// The kinds of the attached outputs' branches, e.g. ["photo1", "movie2"].
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
        splitRecordingsIfTurned()
    }

    /// Gives an output the angle it follows.
    func apply(to output: any CaptureOutput) {
        output.apply(rotation: output.usesPreviewAngle ? previewRotation : rotation)
    }

    // MARK: Stills and recordings

    /// A JPEG of the next frame, with EXIF (Make/Model, DateTimeOriginal, Orientation from
    /// the current rotation, GPS when `location` is given). The session keeps running.
    /// Concurrent requests are served in order; those waiting for the same frame share it.
    public func takePhoto(quality: Int = 90, location: GeoLocation? = nil,
                          timeout: Duration = .seconds(10)) async throws -> Photo {
        let output = try photoOutput()
        return try await output.takePhoto(quality: quality, location: location, timeout: timeout)
    }

    /// Starts recording to `url` (MP4, fragmented so a crash keeps all but the last
    /// fragment). The file starts with a keyframe made for this request.
    /// - Throws: `CaptureError.unwritable` for a path that cannot be written,
    ///   `CaptureError.noEncoder` when no H.264 or H.265 encoder is installed.
    public func startRecording(to url: URL, codec: VideoCodec = .h264,
                               options: MovieOptions = MovieOptions()) throws -> Recording {
        let output = try MovieOutput(url: url, codec: codec, options: options)
        try attach(output)
        return Recording(session: self, output: output)
    }

    /// Waits until `count` more frames have entered the tee (exposure settling by frames).
    public func waitForFrames(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        guard phase == .running else { throw failure ?? CaptureError.closed }
        _ = try await frames.after(count).value(timeout: timeout, what: "\(count) frames")
    }

    /// Frames that entered the tee since the camera started.
    public var frameCount: Int { frames.count }

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

        let sourceChain = try makeSource(size: size, rate: rate, encoding: encoding, in: pipeline)
        do {
            try pipeline.add(tee)
            try sourceChain.last!.link(to: tee)
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
        tee.staticPad("sink")!.addProbe(.buffer) { _ in
            // Only the first frame touches the one-shot: no second lock on every frame.
            if frames.frame() == 1 { first.succeed(()) }
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
        if phase == .starting { phase = .running }
        guard phase == .running else { throw failure ?? CaptureError.closed }
    }

    /// The source elements, added to the pipeline and linked; the last one feeds the tee.
    private func makeSource(size: VideoSize, rate: FrameRate, encoding: ModeChooser.Preference,
                            in pipeline: Pipeline) throws -> [Element] {
        switch camera {
        case .testPattern(let pattern):
            do {
                let src = try Element(factory: "videotestsrc", name: "src")
                try src.set("is-live", true)
                try src.set("pattern", EnumNick(pattern.rawValue))
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
                try pipeline.add(chain)
                for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
                return chain
            } catch {
                throw CaptureError.wrap(error)
            }
        case .device(let device):
            do {
                try device.checkNode()
            } catch {
                throw CaptureError.camera(error)
            }
            do {
                let src = try Element(factory: "v4l2src", name: "src")
                try src.set("device", device.path)
                try pipeline.add(src)
                // READY opens the device; its caps are then what it offers.
                do {
                    try src.setState(.ready, timeout: .seconds(3))
                } catch {
                    throw CaptureError.camera(CameraError(device: device.path, gstreamer: error))
                }
                let offered = src.staticPad("src")!.queryCaps()
                let modes = ModeChooser.modes(in: offered, requested: size, rate: rate)
                guard let mode = ModeChooser.choose(from: modes, size: size, rate: rate, encoding: encoding) else {
                    throw CaptureError.camera(CameraError(device: device.path, cause: .noUsableFormat,
                                                          detail: "it offers \(offered)"))
                }
                format = CaptureFormat(size: mode.size, rate: mode.rate, cameraMode: mode)
                let modeCaps = try Element(factory: "capsfilter", name: "src-caps")
                try modeCaps.set("caps", try Caps(mode.caps))
                var chain = [src, modeCaps]
                if mode.isMJPEG { chain.append(try Element(factory: "jpegdec", name: "decode")) }
                chain.append(try Element(factory: "videoconvert", name: "convert"))
                let rawCaps = try Element(factory: "capsfilter", name: "tee-caps")
                try rawCaps.set("caps", try Caps(format.caps))
                chain.append(rawCaps)
                try pipeline.add(Array(chain.dropFirst()))
                for (a, b) in zip(chain, chain.dropFirst()) { try a.link(to: b) }
                return chain
            } catch let error as GStreamerError {
                throw CaptureError.camera(CameraError(device: device.path, gstreamer: error))
            } catch {
                throw CaptureError.wrap(error)
            }
        }
    }

    private func cameraError(_ error: any Error) -> CaptureError {
        if let e = error as? CaptureError { return e }
        guard let g = error as? GStreamerError else { return CaptureError.pipeline(GStreamerError(message: "\(error)")) }
        return .camera(CameraError(device: camera.identifier, gstreamer: g))
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
                let failure = CaptureError.outputFailed(output: branch.output.kind, error)
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
        guard phase == .starting || phase == .running else { return }
        failure = error
        phase = .failed
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

    private func attachBranch(_ output: any CaptureOutput) throws -> Branch {
        guard phase == .running, let pipeline, let tee else { throw failure ?? CaptureError.closed }
        guard branches[ObjectIdentifier(output)] == nil else { throw CaptureError.alreadyAttached(output.kind) }

        // 1. The head, made ahead of time, linked to a new tee pad: from here on the branch
        //    collects every frame while the rest of it is built.
        let head = try takeHead(for: output)
        var teePad: Pad?
        let requestTime: ClockTime?
        let branch: Branch
        do {
            let pad = try tee.requestPad("src_%u")
            teePad = pad
            requestTime = pipeline.runningTime
            try pad.link(to: head.entry)
            // 2. The output's elements, brought up to PLAYING while nothing flows.
            let sink = try buildOutput(output, after: head)
            branch = Branch(output: output, head: head, teePad: pad, sink: sink)
        } catch {
            // Undo what was done: the tee must not keep a pad into a dead branch. The bus may
            // still bring this branch's error: it is recognised as retired, not the camera's.
            retire(head.name)
            if let teePad {
                teePad.unlink(head.entry)
                tee.releaseRequestPad(teePad)
            }
            head.discard(from: pipeline)
            spare = try? makeHead()
            throw CaptureError.wrap(error)
        }
        branch.flowGuard.install(on: branch.teePad, queueSource: head.queueSource)

        // 3. The current angle before the first frame, then let the frames go.
        apply(to: output)
        branches[ObjectIdentifier(output)] = branch
        output.didAttach(requestTime: requestTime)
        head.open()
        // 4. The next request's head, while nothing waits for it.
        spare = try? makeHead()
        return branch
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
            drainError = drainError ?? CaptureError.pipeline(error)
        }
        try? pipeline.remove(branch.bin)
        tee.releaseRequestPad(teePad)
        branch.output.didDetach(error: error ?? drainError)
    }
}
