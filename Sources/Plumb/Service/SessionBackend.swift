import Foundation
import Synchronization

/// The control API's backend in `plumb serve`: every request is served by the one running
/// `CaptureSession` (through `CameraSlot`), so stills, clips and recordings come from the
/// camera that is already open and never open it a second time.
///
/// - A still is the next frame (`takePhoto`), while everything else keeps running.
/// - A clip is its own short recording on a branch of its own, into a hidden file in the
///   recordings folder (`.clip-*.mp4`: never listed or served) that the API streams and
///   deletes; at most `maxClips` at once (409 beyond: each is an encoder on a small board).
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
    /// Facts only the daemon knows: RTSP clients, the preview URL, the publisher's state.
    private let extras: @Sendable () -> StatusExtras
    private let fps: FPSMeter
    private let log: @Sendable (String) -> Void
    /// Clips being recorded (each an encoder: at most `maxClips`).
    private let clips = Atomic<Int>(0)
    /// Clips from request to delivery.
    private let inFlight = ClipsInFlight()

    public static let maxClips = 2
    /// Clip files in the recordings folder start with this (hidden: never listed or served).
    public static let clipPrefix = ".clip-"

    /// What `GET /status` adds from outside the session.
    public struct StatusExtras: Sendable {
        public var rtspClients = 0
        public var rtspURL: String?
        public var publish: String?
        public var rotationSource: String?
        /// The last error reported, and when.
        public var lastError: LastError?
        public init() {}
    }

    /// `log` gets a line for each clip kept in the folder because its client could not take it.
    public init(camera: CameraSlot, recorder: ContinuousRecorder, folder: RecordingsFolder, codec: VideoCodec,
                fps: FPSMeter, log: @escaping @Sendable (String) -> Void = { _ in },
                extras: @escaping @Sendable () -> StatusExtras) {
        self.camera = camera
        self.recorder = recorder
        self.folder = folder
        self.codec = codec
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
        status.publish = extras.publish
        status.rotationSource = extras.rotationSource
        status.lastError = extras.lastError
        status.recordingFile = await recorder.currentFile
        if case .running(let session) = camera.current {
            let format = await session.format
            status.camera = session.camera.name
            status.caps = format.caps
            status.measuredFPS = fps.framesPerSecond.map { ($0 * 10).rounded() / 10 }
            status.orientation = await session.rotation.degrees
        } else {
            status.camera = "none"
        }
        return status
    }

    public func takePhoto() async throws -> CapturedPhoto {
        let session = try camera.session()
        do {
            let photo = try await session.takePhoto()
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
        let url = URL(fileURLWithPath: folder.path + "/" + Self.clipPrefix + UUID().uuidString + ".mp4")
        let recording: Recording
        do {
            recording = try await session.startRecording(to: url, codec: codec)
        } catch {
            throw APIError.from(error)
        }
        do {
            // Whole frames: N seconds at the session's rate, counted at the muxer. A stop cuts
            // the clip where it stands (once it has a frame); a branch that ended early is
            // reported by `stop()`.
            let rate = await session.format.rate.perSecond
            let wanted = max(1, Int((Double(seconds) * rate).rounded()))
            let deadline = ContinuousClock.now + .seconds(seconds + 10)
            var cut: String?
            while recording.progress.frames < wanted, recording.output.finished.result == nil {
                if let reason = inFlight.cutReason, recording.progress.frames > 0 {
                    cut = reason
                    break
                }
                guard ContinuousClock.now < deadline else {
                    throw CaptureError.timedOut("\(wanted) frames for a \(seconds) s clip", .seconds(seconds + 10))
                }
                try await Task.sleep(for: .milliseconds(40))
            }
            var facts = try await Self.finalize(recording)
            facts.file = "clip-" + facts.startedAt.replacingOccurrences(of: ":", with: "-") + ".mp4"
            if let cut { facts.cutShort = "\(cut): \(facts.seconds) s of the \(seconds) s asked for" }
            let clip = CapturedClip(path: url.path, facts: facts) { [self, facts] delivered in
                clipSent(path: url.path, facts: facts, delivered: delivered)
            }
            handedOver = true
            return clip
        } catch {
            // Cancelled (the client left, or the server stops) or failed: nothing is kept,
            // unless a stop had cut the clip: then what it holds is kept in the folder.
            if let reason = inFlight.cutReason, recording.progress.frames > 0,
               var facts = try? await Self.finalize(recording) {
                facts.cutShort = "\(reason): \(facts.seconds) s of the \(seconds) s asked for"
                keep(clip: url.path, facts: facts,
                     because: error is CancellationError ? "its client went away" : "it could not be answered: \(error)")
            } else {
                _ = try? await Self.finalize(recording)
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

    /// Stops the clip's recording and waits for its file, whatever happens to the task that
    /// asked: a cancelled wait would leave the file unfinished.
    private static func finalize(_ recording: Recording) async throws -> MovieFacts {
        try await Task { try await recording.stop() }.value
    }

    /// The end of a clip's answer: a clip its client got is deleted; one it did not get is
    /// deleted too (nobody wants it any more), unless a stop cut it: that one is kept.
    private func clipSent(path: String, facts: MovieFacts, delivered: Bool) {
        defer { inFlight.leave() }
        if !delivered, inFlight.cutReason != nil {
            keep(clip: path, facts: facts, because: "its client could not take it")
        } else {
            unlink(path)
        }
    }

    /// Moves a clip into the recordings folder under a visible name, and says so.
    private func keep(clip path: String, facts: MovieFacts, because why: String) {
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

    /// Removes clip files a crash left behind.
    public func removeStaleClips() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(Self.clipPrefix) && name.hasSuffix(".mp4") {
            try? FileManager.default.removeItem(atPath: folder.path + "/" + name)
        }
    }
}

/// Frames per second measured at the tee, from (time, frame count) samples the camera
/// supervisor takes about once a second; the rate over the last few seconds.
public final class FPSMeter: Sendable {
    private let samples = Mutex<[(time: ContinuousClock.Instant, frames: Int)]>([])
    private let window: Int

    public init(window: Int = 5) { self.window = window }

    public func add(frames: Int, at time: ContinuousClock.Instant = .now) {
        samples.withLock { s in
            if let last = s.last, frames < last.frames { s.removeAll() }  // a new session
            s.append((time, frames))
            if s.count > window + 1 { s.removeFirst(s.count - window - 1) }
        }
    }

    public func reset() { samples.withLock { $0.removeAll() } }

    public var framesPerSecond: Double? {
        samples.withLock { s in
            guard let first = s.first, let last = s.last, last.frames > first.frames else { return nil }
            let elapsed = last.time - first.time
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return seconds > 0 ? Double(last.frames - first.frames) / seconds : nil
        }
    }
}
