import Foundation

/// The recording of `plumb serve`: started through the API or at start-up
/// (`[recording] continuous`), cut into files of `[recording] segment-seconds` each
/// without losing or doubling a frame, resumed when the camera comes back after a failure,
/// and finalized — every file — on stop.
///
/// A new segment is a new file on a new branch that takes over from the running one at a
/// frame boundary (`CaptureSession.continueRecording(_:in:)`); the old file is finalized
/// in the background while the new one records. Events: `recording-started` for each new
/// file, `recording-stopped` (with its facts) for each finished one.
public actor ContinuousRecorder {
    public struct Settings: Sendable {
        public var folder: RecordingsFolder
        public var codec: VideoCodec
        /// 0: one file per recording.
        public var segmentSeconds: Int
        public var splitOnRotation: Bool

        public init(folder: RecordingsFolder, codec: VideoCodec, segmentSeconds: Int, splitOnRotation: Bool) {
            self.folder = folder
            self.codec = codec
            self.segmentSeconds = segmentSeconds
            self.splitOnRotation = splitOnRotation
        }

        var options: MovieOptions {
            var options = MovieOptions()
            options.splitOnRotation = splitOnRotation
            return options
        }
    }

    /// What `POST /recording/start` answers.
    public struct Started: Sendable, Encodable {
        public var file: String
        public var codec: String
        public var segmentSeconds: Int
        enum CodingKeys: String, CodingKey {
            case file, codec
            case segmentSeconds = "segment_seconds"
        }
    }

    /// What `POST /recording/stop` answers: the last file's facts and every file the
    /// recording wrote since it was started.
    public struct Stopped: Sendable, Encodable {
        public var file: String
        public var facts: MovieFacts?
        public var files: [String]
    }

    public let settings: Settings
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void

    private var session: CaptureSession?
    /// The file being written now (the recording's current segment).
    private var current: Recording?
    /// Every file of this recording (since start), by name.
    private var files: [String] = []
    /// A recording should run: it was started and not stopped. Survives a camera failure,
    /// so the recording resumes in a new file when the camera is back.
    private var wanted = false
    /// A file is being started (the session is building its branch).
    private var starting = false
    private var segmentTimer: Task<Void, Never>?
    /// A move to the next file under way.
    private var rolling: Task<Void, Never>?
    /// The files whose `recording-stopped` went out last (a split announces its old file,
    /// the stop announces the rest): each is announced once. Files finish within moments
    /// of each other, so a short memory is enough for a daemon that runs for months.
    private var announced: [String] = []
    /// Old segments being finalized in the background.
    private var finishing: [UUID: Task<Void, Never>] = [:]

    public init(settings: Settings, publish: @escaping @Sendable (ServiceEvent) -> Void,
                log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.publish = publish
        self.log = log
    }

    /// The file being written, by name; nil when not recording.
    public var currentFile: String? {
        current.map { ($0.segments.last?.url ?? $0.url).lastPathComponent }
    }

    public var isRecording: Bool { current != nil }

    // MARK: The camera coming and going

    /// A session is running: a wanted recording starts (again) in a new file.
    public func sessionOpened(_ session: CaptureSession) async {
        self.session = session
        guard wanted, current == nil, !starting else { return }
        do {
            _ = try await begin()
        } catch {
            report("could not resume the recording: \(error)")
        }
    }

    /// The session failed (it has drained its branches: the files hold what was recorded).
    /// The recording stays wanted and resumes with the next session.
    public func sessionLost() async {
        session = nil
        await finishCurrent()
    }

    // MARK: Start and stop

    /// Starts recording; 409 when already recording, 503 without a camera.
    public func start() async throws(APIError) -> Started {
        guard current == nil, !starting else {
            throw .busy("already recording to \(currentFile ?? "a file"); POST /recording/stop first")
        }
        guard session != nil else {
            throw .cameraUnavailable("the camera is not running, so nothing can be recorded now; try again in a moment")
        }
        wanted = true
        files = []
        do {
            return try await begin()
        } catch {
            wanted = false
            throw APIError.from(error)
        }
    }

    /// Records from start-up until stopped (`[recording] continuous`).
    public func startContinuous() async {
        wanted = true
        files = []
        if session != nil, current == nil, !starting {
            do {
                _ = try await begin()
            } catch {
                report("could not start the continuous recording: \(error)")
            }
        }
    }

    /// Stops and finalizes every file; 409 when not recording.
    public func stop() async throws(APIError) -> Stopped {
        guard current != nil || wanted else {
            throw .busy("not recording; POST /recording/start first")
        }
        wanted = false
        let written = files
        let facts = await finishCurrent()
        await waitForFinishing()
        return Stopped(file: facts?.file.lastPathComponentOfPath ?? written.last ?? "", facts: facts, files: written)
    }

    /// Stops (if recording) and waits until every file is finalized: for shutdown.
    public func shutdown() async {
        wanted = false
        await finishCurrent()
        await waitForFinishing()
    }

    // MARK: -

    /// Starts a new file. `starting` keeps a second start out while the session builds it.
    private func begin() async throws -> Started {
        guard let session else { throw CaptureError.closed }
        starting = true
        defer { starting = false }
        let url = URL(fileURLWithPath: settings.folder.newFile(extension: "mp4"))
        let recording = try await session.startRecording(to: url, codec: settings.codec, options: settings.options)
        guard wanted, self.session === session else {
            // Stopped, or the camera went, while the file was being made.
            background { _ = try? await recording.stop() }
            throw CaptureError.closed
        }
        current = recording
        watch(recording)
        files.append(url.lastPathComponent)
        publish(.recordingStarted(file: url.lastPathComponent))
        log("recording to \(url.path)")
        scheduleSegments()
        return Started(file: url.lastPathComponent, codec: recording.codec.rawValue, segmentSeconds: settings.segmentSeconds)
    }

    private func scheduleSegments() {
        segmentTimer?.cancel()
        segmentTimer = nil
        guard settings.segmentSeconds > 0 else { return }
        let every = Duration.seconds(settings.segmentSeconds)
        segmentTimer = Task { [weak self] in
            var next = ContinuousClock.now + every
            while !Task.isCancelled {
                do { try await Task.sleep(until: next) } catch { return }
                guard let self else { return }
                await self.rollOver()
                next += every
            }
        }
    }

    /// One move to the next file, which a stop waits for (it must not cut in half-way).
    private func rollOver() async {
        let move = Task { await self.nextSegment() }
        rolling = move
        await move.value
        rolling = nil
    }

    /// Moves the recording to a new file at a frame boundary; the old one is finalized meanwhile.
    private func nextSegment() async {
        guard let old = current, let session else { return }
        let url = URL(fileURLWithPath: settings.folder.newFile(extension: "mp4"))
        let next: Recording
        do {
            next = try await session.continueRecording(old, in: url)
        } catch {
            // The recording goes on in the file it has: nothing is lost, the file is only longer.
            report("could not start the next segment \(url.lastPathComponent): \(error); "
                   + "recording on in \(currentFile ?? "the current file")")
            return
        }
        guard current === old else {
            // Stopped while the new file was being made: finalize it too.
            background { _ = try? await next.stop() }
            return
        }
        current = next
        watch(next)
        files.append(url.lastPathComponent)
        if files.count > 1000 { files.removeFirst(files.count - 1000) }
        publish(.recordingStarted(file: url.lastPathComponent))
        log("recording to \(url.path) (next segment)")
        background { [self] in _ = await self.finalize(old) }
    }

    /// Follows a recording's files: a split on rotation is announced when the old file is
    /// finalized (`recording-stopped` for it, `recording-started` for the next), and a
    /// recording that ends by itself (its branch failed: a full disk, an encoder error; or
    /// the camera failed and the session drained it) is reported and let go. Never
    /// cancelled: cancelling a wait on `finished` would fail it for every other waiter.
    private func watch(_ recording: Recording) {
        Task { [weak self] in
            var index = recording.segments.count - 1
            while true {
                let watched = recording.segments[index]
                let facts = try? await watched.finished.value()
                let segments = recording.segments
                guard segments.count > index + 1 else { break }
                await self?.split(finished: watched, facts: facts, next: segments[index + 1])
                index += 1
            }
            await self?.ended(recording)
        }
    }

    /// A recording moved to a new file when the angle changed; the old one is finalized.
    private func split(finished: MovieOutput, facts: MovieFacts?, next: MovieOutput) {
        let old = finished.url.lastPathComponent, name = next.url.lastPathComponent
        if firstAnnouncement(of: old) {
            publish(.recordingStopped(file: old, facts: facts))
        }
        log("recorded \(old)" + (facts.map { ": \($0.frames) frames, \($0.seconds) s, \($0.bytes) bytes" } ?? ""))
        if !files.contains(name) { files.append(name) }
        publish(.recordingStarted(file: name))
        log("recording to \(next.url.path) (turned to \(next.latchedRotation?.degrees ?? 0) degrees)")
    }

    private func ended(_ recording: Recording) async {
        guard current === recording else { return }  // stopped or handed over: already reported
        current = nil
        segmentTimer?.cancel()
        segmentTimer = nil
        let cameraGone = await !(session?.isRunning ?? false)
        if !cameraGone {
            // The camera runs but the file cannot be written: retrying would fail again.
            wanted = false
        }
        await finalize(recording, advice: cameraGone ? nil : "POST /recording/start to record again")
    }

    /// Stops the current file (if any), reports it, and forgets it.
    @discardableResult
    private func finishCurrent() async -> MovieFacts? {
        segmentTimer?.cancel()
        segmentTimer = nil
        await rolling?.value
        guard let recording = current else { return nil }
        current = nil
        return await finalize(recording)
    }

    /// Finalizes one recording's files and says so. A recording that ended by itself (a full
    /// disk, a failed encoder, the camera gone) is reported with its cause and the frames its
    /// file really holds; `advice` says what to do about it.
    @discardableResult
    private func finalize(_ recording: Recording, advice: String? = nil) async -> MovieFacts? {
        let facts: MovieFacts
        do {
            facts = try await recording.stop()
        } catch {
            let name = recording.url.lastPathComponent
            guard let salvaged = recording.factsAfterFailure else {
                publish(.recordingStopped(file: name, facts: nil))
                report("the recording \(name) ended with an error: \(error)" + (advice.map { "; \($0)" } ?? ""))
                return nil
            }
            announce(salvaged)
            let failed = (salvaged.segments ?? [salvaged]).last { $0.error != nil } ?? salvaged
            report("the recording \(failed.file.lastPathComponentOfPath) stopped by itself: \(failed.error ?? "\(error)"); "
                   + "the file holds \(failed.frames) frames (\(failed.seconds) s)" + (advice.map { "; \($0)" } ?? ""))
            return salvaged
        }
        announce(facts)
        return facts
    }

    /// `recording-stopped` and a log line for each file not announced yet.
    private func announce(_ facts: MovieFacts) {
        for file in facts.segments ?? [facts] {
            let name = file.file.lastPathComponentOfPath
            // A file left by a split was announced then.
            guard firstAnnouncement(of: name) else { continue }
            publish(.recordingStopped(file: name, facts: file))
            log("recorded \(name): \(file.frames) frames, \(file.seconds) s, \(file.bytes) bytes")
        }
    }

    /// True the first time a file's end is announced.
    private func firstAnnouncement(of name: String) -> Bool {
        guard !announced.contains(name) else { return false }
        announced.append(name)
        if announced.count > 64 { announced.removeFirst(announced.count - 64) }
        return true
    }

    private func background(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        finishing[id] = Task {
            await work()
            self.forget(id)
        }
    }

    private func forget(_ id: UUID) { finishing[id] = nil }

    private func waitForFinishing() async {
        while let (id, task) = finishing.first {
            await task.value
            finishing[id] = nil
        }
    }

    private func report(_ message: String) {
        publish(.error(message: message))
        log("error: \(message)")
    }
}

extension String {
    /// The last path component of a file path.
    var lastPathComponentOfPath: String { URL(fileURLWithPath: self).lastPathComponent }
}
