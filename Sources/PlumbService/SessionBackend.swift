import FoundationEssentials
import Glibc
import Synchronization
import Plumb
import PlumbLocation
import PlumbRotation

/// The control API's backend in `plumb serve`: every request is served by the one running
/// `CaptureSession` (through `CameraSlot`), so stills, clips and recordings come from the
/// camera that is already open and never open it a second time.
///
/// - A still is the next frame (`takePhoto`), while everything else keeps running.
/// - A clip takes the main encoding for its seconds (`ClipEncoding`: no encoder of its own),
///   or without one is its own short recording on a branch of its own; either way into a
///   hidden file in the recordings folder (`.clip-*.mp4`: never listed or served) that the
///   API streams and deletes; at most `maxClips` at once (409 beyond).
/// - A stop cuts the clips being recorded where they stand (`cutClips`): each is finalized
///   and answered, its facts saying it was cut short and why; a clip its client cannot
///   take is kept in the recordings folder (`clip-DATE.mp4`) and named in the log.
/// - Recording start and stop go to the `ContinuousRecorder`.
/// - No camera: 503 with the reason.
public final class SessionBackend: ControlBackend {
    public let camera: CameraSlot
    public let recorder: ContinuousRecorder
    public let folder: RecordingsFolder
    public let codec: VideoCodec
    /// Where stills and clips get their GPS; nil for none.
    public let location: LocationProvider?
    /// Facts only the daemon knows: RTSP clients, the preview URL, the publisher's state.
    private let extras: @Sendable () -> StatusExtras
    private let fps: FPSMeter
    private let log: @Sendable (String) -> Void
    /// Clips being recorded (each an encoder: at most `maxClips`).
    private let clips = Atomic<Int>(0)
    /// Clips from request to delivery.
    private let inFlight = ClipsInFlight()
    /// Deletes old recordings and says whether there is room for a clip; nil: none.
    private let retention: Retention?
    private let clipEncoding: ClipEncoding?

    public static let maxClips = 2
    /// Clip files in the recordings folder start with this (hidden: never listed or served).
    public static let clipPrefix = ".clip-"

    /// What `GET /status` adds from outside the session.
    public struct StatusExtras: Sendable {
        public var rtspClients = 0
        /// `running` while the preview is encoded, `idle` while nothing takes it.
        public var previewEncoder: String?
        public var rtspURL: String?
        public var publish: String?
        public var rotationSource: String?
        /// The last error reported, and when.
        public var lastError: LastError?
        /// Which encoders run, and why better ones did not.
        public var encoders: EncoderStatus?
        /// The kept camera controls and those the camera lacks.
        public var controls: CameraControlKeeper.Status?
        /// Who takes the encoded preview now: "rtsp", "whep", "publish".
        public var previewFeeds: [String] = []
        /// Who takes the main encoding now: "ring", and the preview's feeds while it shares it.
        public var mainFeeds: [String] = []
        public init() {}
    }

    /// The main encoding a clip takes for its time (`MainEncoding.clipEncoding`); nil: each
    /// clip records with an encoder of its own.
    public struct ClipEncoding: Sendable {
        public var take: @Sendable () async -> (stream: EncodedStream, angle: RotationAngle, encoder: String)
        public var release: @Sendable () async -> Void
    }

    /// `log` gets a line for each clip kept in the folder because its client could not take it.
    public init(camera: CameraSlot, recorder: ContinuousRecorder, folder: RecordingsFolder, codec: VideoCodec,
                fps: FPSMeter, location: LocationProvider? = nil, retention: Retention? = nil,
                clipEncoding: ClipEncoding? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                extras: @escaping @Sendable () -> StatusExtras) {
        self.clipEncoding = clipEncoding
        self.retention = retention
        self.camera = camera
        self.recorder = recorder
        self.folder = folder
        self.codec = codec
        self.location = location
        self.fps = fps
        self.log = log
        self.extras = extras
    }

    public func status() async throws -> CameraStatus {
        let extras = self.extras()
        var status = CameraStatus(camera: "", rtspClients: extras.rtspClients)
        status.state = camera.stateName
        status.problem = camera.problem
        status.rtspURL = extras.rtspURL
        status.previewEncoder = extras.previewEncoder
        status.publish = extras.publish
        status.rotationSource = extras.rotationSource
        status.lastError = extras.lastError
        status.encoders = extras.encoders
        status.controls = extras.controls
        status.runningEncoders = []
        status.location = location?.status()
        status.recordingFile = await recorder.currentFile
        status.recordingWaitsForRoom = await recorder.waitingForRoom
        if case .running(let session) = camera.current {
            let format = await session.format
            status.camera = session.camera.name
            status.caps = format.caps
            status.measuredFPS = fps.framesPerSecond.map { ($0 * 10).rounded() / 10 }
            status.framesLost = session.framesLost
            status.orientation = await session.rotation.degrees
            status.zoom = await session.zoom
            status.device = session.camera.identifier
            status.runningEncoders = await session.runningEncoders.map {
                EncoderStatus.Running($0, previewFeeds: extras.previewFeeds, mainFeeds: extras.mainFeeds)
            }
        } else {
            status.camera = "none"
        }
        return status
    }

    public func takePhoto() async throws -> CapturedPhoto {
        let session = try camera.session()
        do {
            let photo = try await session.takePhoto(location: location?.current())
            return CapturedPhoto(jpeg: photo.jpeg, facts: photo.facts)
        } catch {
            throw APIError.from(error)
        }
    }

    public func recordClip(seconds: Int) async throws -> CapturedClip {
        let session = try camera.session()
        try inFlight.enter()
        // Until the answer is handed over, leaving is this function's job; then `clipSent`'s.
        var handedOver = false
        defer { if !handedOver { inFlight.leave() } }
        guard clips.add(1, ordering: .relaxed).newValue <= Self.maxClips else {
            clips.subtract(1, ordering: .relaxed)
            throw APIError.busy("\(Self.maxClips) clips are being recorded already; try again when one is done")
        }
        defer { clips.subtract(1, ordering: .relaxed) }
        if let retention {
            retention.run(because: "POST /clip")
            if let why = retention.noRoom() { throw APIError.insufficientStorage(why) }
        }
        let url = URL(fileURLWithPath: folder.path + "/" + Self.clipPrefix + UUID().uuidString + ".mp4")
        // Kept from retention until delivered (a clip kept in the folder is complete by then).
        let registration = retention?.inUse.register(path: url.path)
        defer { if !handedOver { registration?.done() } }
        // Whole frames: N seconds at the session's rate.
        let format = await session.format
        let wanted = max(1, Int((Double(seconds) * format.rate.perSecond).rounded()))
        let clip: any ClipTake
        do {
            if let encoding = clipEncoding {
                // The main encoding, taken for the clip's time: no encoder of its own.
                let taken = await encoding.take()
                do {
                    clip = try SharedClip(EncodedClip(stream: taken.stream, url: url, codec: codec, encoder: taken.encoder,
                                                      size: format.size, frames: wanted, angle: taken.angle,
                                                      location: location?.current()), release: encoding.release)
                } catch {
                    await encoding.release()
                    throw error
                }
            } else {
                var options = RecordingOptions()
                if let location { options.location = { location.current() } }
                clip = try await session.startRecording(to: url, codec: codec, options: options)
            }
        } catch {
            throw APIError.from(error)
        }
        do {
            // Counted as written. A stop cuts the clip where it stands (once it has a frame);
            // a clip that ended early is reported by `finalize()`.
            let deadline = ContinuousClock.now + .seconds(seconds + 10)
            // Woken (and the conditions read again) by every frame and end of the clip, by a
            // stop's cut and at the deadline.
            let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let frameWatch = clip.watch { wake.yield() }
            let cutWatch = inFlight.watchCut { wake.yield() }
            let timer = Task {
                try? await Task.sleep(until: deadline)
                wake.yield()
            }
            defer {
                clip.unwatch(frameWatch)
                inFlight.unwatchCut(cutWatch)
                timer.cancel()
                wake.finish()
            }
            var woken = wakes.makeAsyncIterator()
            var cut: String?
            while clip.frames < wanted, !clip.ended {
                if let reason = inFlight.cutReason, clip.frames > 0 {
                    cut = reason
                    break
                }
                guard ContinuousClock.now < deadline else {
                    throw CaptureError.timedOut("\(wanted) frames for a \(seconds) s clip", .seconds(seconds + 10))
                }
                _ = await woken.next()
                try Task.checkCancellation()  // the client went away, or the server stops
            }
            var facts = try await clip.finalize()
            facts.file = "clip-" + facts.startedAt.replacing(":", with: "-") + ".mp4"
            if let cut { facts.cutShort = "\(cut): \(facts.seconds) s of the \(seconds) s asked for" }
            let answer = CapturedClip(path: url.path, facts: facts) { [self, facts] delivered in
                clipSent(path: url.path, facts: facts, delivered: delivered)
                registration?.done()
            }
            handedOver = true
            return answer
        } catch where clip.storageFailed {
            // A full disk (or a failing card) ended the clip: what it holds plays, and is
            // answered, saying why it is short; nothing playable: 507.
            retention?.run(because: "a write error")
            if var facts = clip.factsAfterFailure, facts.frames > 0 {
                facts.file = "clip-" + facts.startedAt.replacing(":", with: "-") + ".mp4"
                facts.cutShort = "\(facts.error ?? "\(error)"): \(facts.seconds) s of the \(seconds) s asked for"
                let answer = CapturedClip(path: url.path, facts: facts) { [self, facts] delivered in
                    clipSent(path: url.path, facts: facts, delivered: delivered)
                    registration?.done()
                }
                handedOver = true
                return answer
            }
            try? FileManager.default.removeItem(at: url)
            throw APIError.insufficientStorage("the clip could not be written: \(error)")
        } catch {
            // Cancelled (the client left, or the server stops) or failed: nothing is kept,
            // unless a stop had cut the clip: then what it holds is kept in the folder.
            if let reason = inFlight.cutReason, clip.frames > 0, var facts = try? await clip.finalize() {
                facts.cutShort = "\(reason): \(facts.seconds) s of the \(seconds) s asked for"
                keep(clip: url.path, facts: facts,
                     because: error is CancellationError ? "its client went away" : "it could not be answered: \(error)")
            } else {
                _ = try? await clip.finalize()
                try? FileManager.default.removeItem(at: url)
            }
            throw APIError.from(error)
        }
    }

    /// Every clip being recorded is cut where it stands and answered (and no new one starts):
    /// for a stop. Returns how many clips are under way.
    @discardableResult
    public func cutClips(because reason: String) -> Int {
        inFlight.cut(because: reason)
    }

    /// Waits until every clip was delivered or kept, at most `limit`; false when a client is
    /// still taking one (stopping the HTTP server then keeps it in the folder).
    public func waitForClips(limit: Duration) async -> Bool {
        await inFlight.waitUntilDone(limit: limit)
    }

    /// The end of a clip's answer: a clip its client got is deleted; one it did not get is
    /// deleted too (nobody wants it any more), unless a stop cut it: that one is kept.
    private func clipSent(path: String, facts: RecordingFacts, delivered: Bool) {
        defer { inFlight.leave() }
        if !delivered, inFlight.cutReason != nil {
            keep(clip: path, facts: facts, because: "its client could not take it")
        } else {
            unlink(path)
        }
    }

    /// Moves a clip into the recordings folder under a visible name, and says so.
    private func keep(clip path: String, facts: RecordingFacts, because why: String) {
        let target = folder.newFile(extension: "mp4", prefix: "clip-")
        if rename(path, target) == 0 {
            log("clip kept: \(target): \(facts.frames) frames (\(facts.cutShort ?? "\(facts.seconds) s")); \(why)")
        } else {
            log("error: could not keep the clip \(path) as \(target): \(String(cString: strerror(errno)))")
        }
    }

    public func startRecording() async throws -> any Encodable & Sendable {
        _ = try camera.session()
        return try await recorder.start()
    }

    public func stopRecording() async throws -> any Encodable & Sendable {
        try await recorder.stop()
    }

    /// Clip files a crash or a second stop signal left behind (`.clip-UUID.mp4`: the daemon
    /// ended before the clip's client had it) are kept under a visible name, `clip-DATE.mp4`
    /// after the time the file was last written, for the start-up repair to make them normal
    /// MP4s (or move them to `damaged/`); each is logged. Returns the new names.
    public func keepStaleClips() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var kept: [String] = []
        for name in names.sorted() where name.hasPrefix(Self.clipPrefix) && name.hasSuffix(".mp4") {
            let path = folder.path + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let written = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
            let target = folder.newFile(extension: "mp4", date: written, prefix: "clip-")
            let visible = URL(fileURLWithPath: target).lastPathComponent
            if rename(path, target) == 0 {
                log("clip kept: \(target): \(name) was a clip plumb serve ended before its client had it "
                    + "(a crash or a second stop signal); kept under this name for the repair")
                kept.append(visible)
            } else {
                log("error: could not keep the clip \(path) as \(target): \(String(cString: strerror(errno))); left as it was")
            }
        }
        return kept
    }
}
