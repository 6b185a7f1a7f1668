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
    private let clips = Atomic<Int>(0)

    public static let maxClips = 2
    /// Clip files in the recordings folder start with this (hidden: never listed or served).
    public static let clipPrefix = ".clip-"

    /// What `GET /status` adds from outside the session.
    public struct StatusExtras: Sendable {
        public var rtspClients = 0
        public var rtspURL: String?
        public var publish: String?
        public var rotationSource: String?
        public init() {}
    }

    public init(camera: CameraSlot, recorder: ContinuousRecorder, folder: RecordingsFolder, codec: VideoCodec,
                fps: FPSMeter, extras: @escaping @Sendable () -> StatusExtras) {
        self.camera = camera
        self.recorder = recorder
        self.folder = folder
        self.codec = codec
        self.fps = fps
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
            _ = try await recording.firstFrameTime(timeout: .seconds(10))
            // Whole frames: N seconds at the session's rate, counted at the muxer.
            let rate = await session.format.rate.perSecond
            let wanted = max(1, Int((Double(seconds) * rate).rounded()))
            let deadline = ContinuousClock.now + .seconds(seconds + 10)
            while recording.progress.frames < wanted {
                guard ContinuousClock.now < deadline else {
                    throw CaptureError.timedOut("\(wanted) frames for a \(seconds) s clip", .seconds(seconds + 10))
                }
                try await Task.sleep(for: .milliseconds(40))
            }
            var facts = try await recording.stop()
            facts.file = "clip-" + facts.startedAt.replacingOccurrences(of: ":", with: "-") + ".mp4"
            return CapturedClip(path: url.path, facts: facts)
        } catch {
            // Cancelled (the client left, the server stops) or failed: nothing is kept.
            _ = try? await recording.stop()
            try? FileManager.default.removeItem(at: url)
            throw APIError.from(error)
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
