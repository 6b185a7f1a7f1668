import FoundationEssentials
import Glibc
import Plumb
import PlumbLocation

/// The recording of `plumb serve`: started through the API or at start-up
/// (`[recording] continuous`), cut into files of `[recording] segment-seconds` each
/// without losing or doubling a frame, resumed when the camera comes back after a failure,
/// and finalized — every file — on stop.
///
/// A new segment is a new file on a new branch that takes over from the running one at a
/// frame boundary (`CaptureSession.rollOver(_:to:fileLength:)`), the recording's next
/// segment as on a turn or a camera switch; the old file is finalized in the background
/// while the new one records. Events: `recording-started` for each new file,
/// `recording-stopped` (with its facts) for each finished one.
///
/// What it is doing is one `RecorderState` (idle, starting, recording, rolling, finishing):
/// each request and each end of a step is a transition of it, and one that comes while a
/// file is being made or rolled waits for that step to end.
public actor ContinuousRecorder {
    /// The daemon's main encoding, which the recording's encoder runs while it records
    /// (`MainEncoding.share`): its stream, its codec, and who is told when a recording starts
    /// feeding it (its first frame is in) and before one stops.
    public struct EncodingShare: Sendable {
        public var stream: EncodedStream
        public var codec: VideoCodec
        public var feeding: @Sendable (ObjectIdentifier) async -> Void
        public var stopping: @Sendable (ObjectIdentifier) async -> Void
    }

    public struct Settings: Sendable {
        public var folder: RecordingsFolder
        public var codec: VideoCodec
        /// 0: one file per recording.
        public var segmentSeconds: Int
        public var splitOnRotation: Bool
        /// Where each file gets the location of its start; nil for none.
        public var location: LocationProvider?
        /// Deletes old recordings before a file starts and after one is finished, and says
        /// whether there is room to record; nil: no retention, always room.
        public var retention: Retention?
        /// Where the files being written are registered, so that retention keeps them.
        public var inUse: FilesInUse?
        /// `[recording] encoder`.
        public var encoder: EncoderPreference
        /// The main encoding the recording's encoder runs; nil: the recording encodes for itself.
        public var share: EncodingShare?

        public init(folder: RecordingsFolder, codec: VideoCodec, segmentSeconds: Int, splitOnRotation: Bool,
                    location: LocationProvider? = nil, retention: Retention? = nil, inUse: FilesInUse? = nil,
                    encoder: EncoderPreference = .auto, share: EncodingShare? = nil) {
            self.encoder = encoder
            self.share = share
            self.folder = folder
            self.codec = codec
            self.segmentSeconds = segmentSeconds
            self.splitOnRotation = splitOnRotation
            self.location = location
            self.retention = retention
            self.inUse = inUse ?? retention?.inUse
        }

        var options: RecordingOptions {
            var options = RecordingOptions()
            options.splitOnRotation = splitOnRotation
            options.encoder = encoder
            if let location { options.location = { location.current() } }
            // Same codec: the main encoding is the recording's.
            if let share, share.codec == codec { options.feeds = share.stream }
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

    /// What `POST /recording/stop` answers: the last file's facts (`file`'s) and every file
    /// the recording wrote since it was started.
    public struct Stopped: Sendable, Encodable {
        public var file: String
        public var facts: RecordingFacts?
        public var files: [String]
    }

    public let settings: Settings
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void

    private var session: CaptureSession?
    /// What the recording is doing; every change goes through `change` (or `whenSettled`).
    private(set) var state = RecorderState<Recording>.idle
    /// Every file of this recording (since start), by name.
    private var files: [String] = []
    /// Runs while a file is written (`state.file`): `change` keeps it so.
    private var segmentTimer: Task<Void, Never>?
    /// Events waiting for the step under way to end (`RecorderState.Step.later`).
    private var waitingForChange: [CheckedContinuation<Void, Never>] = []
    /// The files whose `recording-stopped` went out last (a roll announces its old file,
    /// the stop announces the rest): each is announced once. Files finish within moments
    /// of each other, so a short memory is enough for a daemon that runs for months.
    private var announced: [String] = []
    /// Recordings being finalized in the background.
    private var finishing: [UUID: Task<Void, Never>] = [:]
    /// The files being written, registered in `settings.inUse` until finalized.
    private var inUse: [ObjectIdentifier: FilesInUse.Registration] = [:]
    /// Why the recording waits for room (`starting(.waitingForRoom)`): the write error.
    private var roomProblem: String?

    public init(settings: Settings, publish: @escaping @Sendable (ServiceEvent) -> Void,
                log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.publish = publish
        self.log = log
    }

    /// The file being written, by name; nil when not recording.
    public var currentFile: String? {
        state.file.map { ($0.segments.last?.url ?? $0.url).lastPathComponent }
    }

    public var isRecording: Bool { state.file != nil }

    /// Why the recording stopped and waits for room on the disk; nil unless it does.
    public var waitingForRoom: String? {
        guard case .starting(.waitingForRoom) = state else { return nil }
        return roomProblem ?? "waiting for room on the disk"
    }

    // MARK: The camera coming and going

    /// A session is running: a wanted recording starts (again) in a new file.
    public func sessionOpened(_ session: CaptureSession) async {
        self.session = session
        guard change({ $0.cameraOpened() }) else { return }
        do {
            _ = try await makeFile()
        } catch {
            report("could not resume the recording: \(error)")
        }
    }

    /// The session failed (it has drained its branches: the files hold what was recorded).
    /// The recording stays wanted and resumes with the next session.
    public func sessionLost() async {
        session = nil
        if let file = await whenSettled({ $0.cameraLost() }) {
            await handBack(file)
            await finalize(file)
        }
    }

    // MARK: Start and stop

    /// Starts recording.
    /// - Throws: `alreadyRecording` or `stopping`, `noCamera`, `noRoom` (even after retention),
    ///   `cannotRecord` (the engine's error).
    public func start() async throws(RecorderError) -> Started {
        let hasCamera = session != nil
        // A recording that waits for room is kept waiting by a start that has no room either.
        if case .starting(.waitingForRoom) = state, let retention = settings.retention {
            retention.run(because: "a start (the recording waits for room)")
            if let why = retention.noRoom() { throw .noRoom(why) }
        }
        do {
            try change { state throws(RecorderState<Recording>.Refusal) in try state.start(hasCamera: hasCamera) }
        } catch {
            throw refused(error)
        }
        files = []
        return try await makeFile()
    }

    /// Records from start-up until stopped (`[recording] continuous`).
    public func startContinuous() async {
        let hasCamera = session != nil
        if state.file == nil { files = [] }
        guard change({ $0.startContinuous(hasCamera: hasCamera) }) else { return }
        do {
            _ = try await makeFile()
        } catch {
            report("could not start the continuous recording: \(error)")
        }
    }

    /// Stops and finalizes every file. A stop while a file is being made or rolled waits
    /// for it, then stops the file it left.
    /// - Throws: `notRecording`, or `stopping` while another stop finalizes the files.
    public func stop() async throws(RecorderError) -> Stopped {
        let last: Recording?
        do {
            last = try await whenSettled { state throws(RecorderState<Recording>.Refusal) in try state.stop() }
        } catch {
            throw refused(error)
        }
        await handBack(last)
        let written = files
        // The last file's: the earlier segments were announced (with theirs) as they finished.
        let facts = await finish(last).map { $0.segments?.last ?? $0 }
        return Stopped(file: facts?.file.lastPathComponentOfPath ?? written.last ?? "", facts: facts, files: written)
    }

    /// Stops (if recording) and waits until every file is finalized: for shutdown.
    public func shutdown() async {
        while true {
            do throws(RecorderState<Recording>.Refusal) {
                let last = try await whenSettled { state throws(RecorderState<Recording>.Refusal) in try state.stop() }
                await handBack(last)
                await finish(last)
                return
            } catch .stopping {
                // A stop is finalizing the files: it ends in idle.
                await nextChange()
            } catch {
                // Not recording; old segments may still be being finalized.
                await waitForFinishing()
                return
            }
        }
    }

    // MARK: -

    /// A request the state refuses, as the recorder's error.
    private func refused(_ refusal: RecorderState<Recording>.Refusal) -> RecorderError {
        switch refusal {
        case .recording: .alreadyRecording(file: currentFile)
        case .stopping: .stopping
        case .noCamera: .noCamera
        case .notRecording: .notRecording
        }
    }

    /// Applies one transition, then keeps the segment timer to the state and wakes the
    /// events that wait for a change.
    @discardableResult
    private func change<Outcome, Failure: Error>(
        _ transition: (inout RecorderState<Recording>) throws(Failure) -> Outcome
    ) throws(Failure) -> Outcome {
        let outcome = try transition(&state)
        changed()
        return outcome
    }

    /// After each change: the segment timer runs while a file is written, and the events
    /// waiting for a change try again.
    private func changed() {
        if state.file == nil {
            segmentTimer?.cancel()
            segmentTimer = nil
        } else if segmentTimer == nil {
            scheduleSegments()
        }
        let waiting = waitingForChange
        waitingForChange = []
        for event in waiting { event.resume() }
    }

    /// Applies `transition` as soon as it applies: one that must wait for the step under way
    /// (`Step.later`, which changes nothing, so wakes nobody) is tried again after each change.
    private func whenSettled<Outcome, Failure: Error>(
        _ transition: (inout RecorderState<Recording>) throws(Failure) -> RecorderState<Recording>.Step<Outcome>
    ) async throws(Failure) -> Outcome {
        while true {
            if case .now(let outcome) = try transition(&state) {
                changed()
                return outcome
            }
            await nextChange()
        }
    }

    private func nextChange() async {
        await withCheckedContinuation { waitingForChange.append($0) }
    }

    /// The end of a stop: the last file finalized and announced, then the old segments;
    /// the last file's facts.
    @discardableResult
    private func finish(_ last: Recording?) async -> RecordingFacts? {
        var facts: RecordingFacts?
        if let last { facts = await finalize(last) }
        await waitForFinishing()
        change { $0.finished() }
        return facts
    }

    /// Makes a new file (the state is `starting(.making)`); the state says who waits for it.
    /// - Throws: `noRoom` (even after retention) or `cannotRecord`.
    private func makeFile() async throws(RecorderError) -> Started {
        let recording: Recording, url: URL
        if let retention = settings.retention {
            retention.run(because: "a recording starts")
            if let why = retention.noRoom() {
                roomProblem = why
                change { $0.makingFailed(noRoom: true) }
                throw .noRoom(why)
            }
        }
        var registration: FilesInUse.Registration?
        do {
            guard let session else { throw CaptureError.closed }
            url = URL(fileURLWithPath: settings.folder.newFile(extension: "mp4", avoiding: Set(files + announced)))
            registration = settings.inUse?.register(path: url.path)
            recording = try await session.startRecording(to: url, codec: settings.codec, options: settings.options)
        } catch {
            registration?.done()
            change { $0.makingFailed() }
            throw .cannotRecord(error)
        }
        register(recording)
        registration?.done()
        guard change({ $0.made(recording) }) else {
            // Not reached: only the making ends `starting(.making)`. The file is finalized all the same.
            background { [self] in
                _ = try? await recording.stop()
                await self.unregister(recording)
            }
            throw .cannotRecord(CaptureError.closed)
        }
        watch(recording)
        if recording.output.options.feeds != nil, let share = settings.share {
            // Told once the recording's first frame is in: its encoder then runs the main encoding.
            let id = ObjectIdentifier(recording)
            Task {
                guard (try? await recording.firstFrameTime()) != nil else { return }
                await share.feeding(id)
            }
        }
        files.append(url.lastPathComponent)
        publish(.recordingStarted(file: url.lastPathComponent))
        log("recording to \(url.path)")
        return Started(file: url.lastPathComponent, codec: recording.codec.rawValue, segmentSeconds: settings.segmentSeconds)
    }

    /// Before a recording whose encoder runs the main encoding stops: the main branch takes
    /// over from it (if anything takes the main encoding), so the ring and the preview lose
    /// no frame.
    private func handBack(_ recording: Recording?) async {
        guard let recording, recording.output.options.feeds != nil, let share = settings.share else { return }
        await share.stopping(ObjectIdentifier(recording))
    }

    private func scheduleSegments() {
        guard settings.segmentSeconds > 0 else { return }
        let every = Duration.seconds(settings.segmentSeconds)
        // The timer asks early and the session cuts at the frame `every` after the file's
        // first: building the next file's branch (slower on a loaded machine) then shortens
        // or stretches no file.
        let early = min(Duration.milliseconds(700), every / 2)
        segmentTimer = Task { [weak self] in
            var next = ContinuousClock.now + every
            while !Task.isCancelled {
                do { try await Task.sleep(until: next - early) } catch { return }
                guard let self else { return }
                await self.rollOver(fileLength: every)
                next += every
            }
        }
    }

    /// One move to the next file, in a task of its own: the timer's cancellation must not
    /// cut it in half.
    /// - Parameter fileLength: cut at the frame this long after the file's first (nil: at once).
    func rollOver(fileLength: Duration? = nil) async {
        guard let session, let old = change({ $0.segmentDue() }) else { return }
        await Task { await self.roll(from: old, in: session, fileLength: fileLength) }.value
    }

    /// Rolls the recording over to a new file at a frame boundary; the old one is finalized
    /// meanwhile (and announced by `watch`, as after any roll).
    private func roll(from recording: Recording, in session: CaptureSession, fileLength: Duration?) async {
        let url = URL(fileURLWithPath: settings.folder.newFile(extension: "mp4", avoiding: Set(files + announced)))
        let registration = settings.inUse?.register(path: url.path)
        defer { registration?.done() }
        do {
            try await session.rollOver(recording, to: url, fileLength: fileLength)
        } catch {
            change { $0.rollFailed() }
            report("could not start the next segment \(url.lastPathComponent): \(error); "
                   + "recording on in \(currentFile ?? "the current file")")
            return
        }
        // Only the roll ends `rolling`: the state is `recording` again, in the next segment.
        change { _ = $0.rolled(to: recording) }
        started(url.lastPathComponent, why: "next segment")
    }

    /// `recording-started` for a new segment, once (the roll and `watch` both see it).
    private func started(_ name: String, why: String) {
        guard !files.contains(name) else { return }
        files.append(name)
        if files.count > 1000 { files.removeFirst(files.count - 1000) }
        publish(.recordingStarted(file: name))
        log("recording to \(settings.folder.path)/\(name) (\(why))")
    }

    /// Follows a recording's segments: each roll (on time, on a turn, on a camera switch) is
    /// announced when the old file is finalized (`recording-stopped` for it,
    /// `recording-started` for the next), and a recording that ends by itself (its branch
    /// failed: a full disk, an encoder error; or the camera failed and the session drained
    /// it) is reported and let go. Never cancelled: cancelling a wait on `finished` would
    /// fail it for every other waiter.
    private func watch(_ recording: Recording) {
        Task { [weak self] in
            var watched = recording.latest
            while true {
                let facts: RecordingFacts?
                do {
                    facts = try await watched.finished.value()
                } catch {
                    // Ended by itself: the facts as the file holds them, with why.
                    facts = watched.factsAfterFailure
                }
                guard let next = recording.segment(after: watched) else { break }
                await self?.rolledOver(recording, from: watched, facts: facts, to: next)
                watched = next
            }
            await self?.ended(recording)
        }
    }

    /// A recording rolled over to `next`, and its old segment is finalized: announced, then
    /// let go of (a recording that runs for months keeps only the files it writes).
    private func rolledOver(_ recording: Recording, from finished: RecordingOutput, facts: RecordingFacts?,
                            to next: RecordingOutput) {
        let old = finished.url.lastPathComponent
        if let facts {
            announce(facts)
        } else if firstAnnouncement(of: old) {
            publish(.recordingStopped(file: old, facts: nil))
        }
        recording.forget(finished)
        settings.retention?.run(because: "\(old) finished")
        started(next.url.lastPathComponent, why: "next segment, at \(next.latchedRotation?.degrees ?? 0) degrees")
    }

    /// A branch that ended by itself; a file being rolled is dealt with when the roll has
    /// ended (it hands the recording over, or leaves it in this file).
    private func ended(_ recording: Recording) async {
        let cameraRunning = await session?.isRunning ?? false
        let storage = StorageFailure.failed(recording) || settings.retention?.noRoom() != nil
        guard await whenSettled({ $0.ended(recording, cameraRunning: cameraRunning, storageFailed: storage) }) else { return }
        await handBack(recording)
        if storage, cameraRunning {
            let facts = await finalize(recording, advice: "recording resumes in a new file when there is room "
                                       + "(checked every \(Retention.interval))")
            roomProblem = facts.flatMap { f in (f.segments ?? [f]).compactMap(\.error).last } ?? "a write failed"
            settings.retention?.run(because: "a write error")
        } else {
            await finalize(recording, advice: cameraRunning ? "POST /recording/start to record again" : nil)
        }
    }

    /// Every few seconds (the daemon's retention timer): a recording that waits for room
    /// resumes in a new file once there is room.
    public func resumeIfRoom() async {
        guard case .starting(.waitingForRoom) = state, settings.retention?.noRoom() == nil,
              change({ $0.roomReturned() }) else { return }
        do {
            let started = try await makeFile()
            roomProblem = nil
            log("recording resumed in \(started.file): there is room again")
        } catch {
            report("could not resume the recording: \(error)")
        }
    }

    /// Registers a recording's files (all of them, as each roll adds one) as in use until finalized.
    private func register(_ recording: Recording) {
        guard let inUse = settings.inUse else { return }
        self.inUse[ObjectIdentifier(recording)] = inUse.register { recording.segments.map(\.url.path) }
    }

    private func unregister(_ recording: Recording) {
        inUse.removeValue(forKey: ObjectIdentifier(recording))?.done()
    }

    /// Finalizes one recording's files and says so. A recording that ended by itself (a full
    /// disk, a failed encoder, the camera gone) is reported with its cause and the frames its
    /// file really holds; `advice` says what to do about it.
    @discardableResult
    private func finalize(_ recording: Recording, advice: String? = nil) async -> RecordingFacts? {
        let facts: RecordingFacts
        defer {
            unregister(recording)
            settings.retention?.run(because: "\(recording.url.lastPathComponent) finished")
        }
        do {
            facts = try await recording.stop()
        } catch {
            let name = recording.latest.url.lastPathComponent
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
    private func announce(_ facts: RecordingFacts) {
        for file in facts.segments ?? [facts] {
            let name = file.file.lastPathComponentOfPath
            // A file left by a split was announced then.
            guard firstAnnouncement(of: name) else { continue }
            publish(.recordingStopped(file: name, facts: file))
            // Stopped before its first frame: the engine removed the header-only file.
            guard file.frames > 0 || FileManager.default.fileExists(atPath: file.file) else {
                log("recording \(name) stopped before its first frame: no file kept")
                continue
            }
            log("recorded \(name): \(file.frames) frames, \(file.seconds) s, \(file.bytes) bytes")
            // Once per file: at most one line a segment, however many frames go missing.
            if let loss = file.lossSummary { log("warning: \(loss)") }
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
