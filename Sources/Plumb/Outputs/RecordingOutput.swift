import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import PlumbLocation
import PlumbMedia
import Synchronization
import PlumbRotation

/// A recording: `[videoflip !] x264enc|x265enc ! h264parse|h265parse ! mp4mux ! filesink`
/// on a branch of the running session. One RecordingOutput writes one file, one segment of
/// a `Recording`; however the recording rolls over to its next segment (on time, on a turn,
/// on new caps) the next file is `nextSegment(at:)` of the current one.
///
/// - By default the muxer writes fragments (`first-moov-then-finalise`): after `kill -9`
///   the file plays up to the last whole fragment; a clean stop leaves a normal MP4
///   (`RecordingOptions.container` chooses another layout).
/// - The angle is latched when the branch is attached (a file has one orientation): it
///   goes into the `tkhd` matrix, or into the pixels with `burnIn`. The muxer gets it as an
///   `image-orientation` tag; where it ignores the tag (GStreamer 1.22), Plumb's matrix
///   writer rewrites the `tkhd` (`RecordingOrientationTag`).
/// - The file starts with a keyframe made for the request: a force-key-unit event goes
///   to the fresh encoder before its first frame, and anything before the first keyframe
///   is dropped.
/// - The filesink is unbuffered, so what the muxer emitted is in the kernel's hands and
///   survives the process.
/// - Video only: this branch never has an audio element.
/// - With `RecordingOptions.location`, the file carries where it started (`MP4LocationWriter`).
public final class RecordingOutput: CaptureOutput {
    public let kind = "recording"
    /// About a second of frames may wait for a slow encoder before the oldest are dropped.
    public var queueLimit: Int { 30 }

    public let url: URL
    /// The encoder really used (after any fallback).
    public let choice: EncoderChoice
    public let options: RecordingOptions
    /// The file this one's name follows and its number after it: (its own url, 1) for a
    /// named file; a segment named for it is `NAME-N.mp4` (`RecordingChain.url(after:number:)`).
    private let naming: (after: URL, number: Int)
    let chain: RecordingChain

    /// The branch's pads the file's angle and its first keyframe request go to.
    struct Plumbing: Sendable {
        let encoderSource: Pad
        /// The parser's src pad, into the muxer: where the orientation tag goes.
        let muxerInput: Pad
        let muxerSource: Pad
        /// The videoflip that turns the pixels (`RecordingOptions.burnIn`).
        let burnIn: Element?
    }

    /// The file's life, with what its frames have told from the first on (`RecordingStage`),
    /// and what the branch around it has told: what the tee gave it (from before its build),
    /// what videoconvert copied, the request and the file's settings.
    private struct State {
        var stage = RecordingStage<Plumbing>.made
        var size = VideoSize(width: 0, height: 0)
        var rate = FrameRate(30)
        /// Whether Plumb's own matrix writer was installed (the muxer ignores the tag).
        var rewritesMatrix = false
        var requestTime: ClockTime?
        var requestDate = Date()
        var conversion = PixelConversionTally()
        /// The location of the file's start, and what writes it.
        var location: MP4LocationWriter?
        /// What the tee gave this branch (frames, and the gaps between them: frames the
        /// camera dropped), from before the branch was built.
        var entries = BranchEntryLog(rate: FrameRate(30))
    }

    private let state = Mutex(State())
    /// The controls in force when the branch was built (`facts().controls`).
    private let startControls = Mutex<[String: CameraControlFact]?>(nil)
    private let first = OneShot<ClockTime>()
    /// The stream this file's frames feed (`RecordingOptions.feeds`), once built.
    private let feed = Mutex<(stream: EncodedStream, feed: EncodedStreamFeed)?>(nil)
    package let finished = OneShot<RecordingFacts>()

    /// Checks the target and picks the encoder; nothing runs until it is attached.
    public convenience init(url: URL, codec: VideoCodec = .h264, options: RecordingOptions = RecordingOptions()) throws {
        try self.init(url: url, codec: codec, options: options, chain: RecordingChain(length: options.length),
                      naming: (url, 1))
    }

    private init(url: URL, codec: VideoCodec, options: RecordingOptions, chain: RecordingChain,
                 naming: (after: URL, number: Int), choice: EncoderChoice? = nil) throws {
        self.url = url
        self.options = options
        self.chain = chain
        self.naming = naming
        self.choice = try choice ?? EncoderChoice.choose(codec, preference: options.encoder, available: options.isAvailable)
        try Self.checkWritable(url)
        if options.burnIn && options.feeds != nil {
            throw CaptureError.invalidArgument("a recording that burns the turn into its pixels cannot feed another stream")
        }
        guard options.fragmentDuration >= .milliseconds(100) else {
            throw CaptureError.invalidArgument("fragment duration \(options.fragmentDuration) is too short (at least 100 ms)")
        }
    }

    /// The recording's next segment, whatever rolls it over: same codec, encoder and options
    /// (a roll must not wait for a hardware probe), same recording; at `url`, or without one
    /// named after this file (`NAME-N.mp4`, never over an existing file).
    func nextSegment(at url: URL? = nil) throws -> RecordingOutput {
        let named: (after: URL, number: Int) = url.map { ($0, 1) } ?? (naming.after, naming.number + 1)
        let target = url ?? RecordingChain.url(after: named.after, number: named.number)
        return try RecordingOutput(url: target, codec: choice.codec, options: options, chain: chain,
                                   naming: named, choice: choice)
    }

    /// Where the file started (`RecordingOptions.location`, read when its branch was built);
    /// nil for none.
    public var location: GeoLocation? { state.withLock { $0.location?.location } }

    /// The angle latched for this file, once attached.
    public var latchedRotation: RotationAngle? { state.withLock { $0.stage.angle } }

    /// The target's folder must exist and be writable; an existing file is replaced.
    static func checkWritable(_ url: URL) throws {
        guard url.isFileURL else { throw CaptureError.unwritable(path: url.absoluteString, reason: "not a file path") }
        let path = url.path
        var isDirectory: Bool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory {
            throw CaptureError.unwritable(path: path, reason: "it is a directory")
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory else {
            throw CaptureError.unwritable(path: path, reason: "the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw CaptureError.unwritable(path: path, reason: "the folder \(folder) is not writable")
        }
    }

    // MARK: CaptureOutput

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        try state.withLock { s in
            guard s.stage.startBuild() else {
                throw CaptureError.alreadyAttached("this recording (a RecordingOutput writes one file)")
            }
            s.size = format.size
            s.rate = format.rate
        }
        // One keyframe per fragment by default, so every fragment starts decodable.
        let gop = options.keyframeInterval
            ?? max(1, Int((format.rate.perSecond * options.fragmentDuration.seconds).rounded()))
        // Burn-in: the pixels turned before the encoder; its direction is set with the
        // latched angle in `apply(rotation:)`, before the first frame.
        let flip = options.burnIn ? try Element(factory: "videoflip", name: "burn-in") : nil
        // videoconvert passes the tee's frames through untouched when the encoder takes
        // them as they are; it converts only for an encoder that needs another format.
        let convert = try Element(factory: "videoconvert", name: "convert")
        let encoder = try Element(factory: choice.encoder, name: "encoder")
        let settings = EncodingSettings(bitrate: options.bitrate, keyframeInterval: gop, profile: options.profile,
                                        level: options.level, zeroLatency: true)
        try settings.apply(to: encoder, as: choice.candidate)
        let profileCaps = try settings.encodedCaps(codec: choice.codec).map { text in
            let filter = try Element(factory: "capsfilter", name: "profile")
            try filter.set("caps", try Caps(text))
            return filter
        }
        let parser = try Element(factory: choice.parser, name: "parser")
        // Feeding a stream: a parser first makes the frames what the stream's subscribers
        // take (byte-stream, the parameter sets in every keyframe); the muxer's parser then
        // makes them what mp4mux takes.
        let tap = try options.feeds.map { _ in
            let parser = try Element(factory: choice.parser, name: "stream-parser")
            try parser.set("config-interval", Int32(-1))
            let caps = try Element(factory: "capsfilter", name: "stream-caps")
            try caps.set("caps", try Caps(MainEncodingOutput.caps(for: choice.codec)))
            return (parser: parser, caps: caps)
        }
        let mux = try Element(factory: "mp4mux", name: "mux")
        if let mode = options.container.fragmentMode {
            try mux.set("fragment-duration", Int((options.fragmentDuration.seconds * 1000).rounded()))
            try mux.set("fragment-mode", EnumNick(mode))
        }
        // The camera's controls as the recording starts, for its facts.
        startControls.withLock { $0 = CameraControlReading.read(camera)?.inForce }
        // Where the file starts: read now, written into every movie header.
        if let location = options.location?(), location.isValid {
            let writer = MP4LocationWriter(location: location)
            try writer.install(on: mux)
            state.withLock { $0.location = writer }
        }
        // Probed once per process, here rather than when the angle is latched on attach.
        if options.matrixWriter is MP4MatrixWriter { _ = RecordingOrientationTag.muxerWritesMatrix }
        let sink = try Element(factory: "filesink", name: "file")
        try sink.set("location", url.path)
        try sink.set("buffer-mode", EnumNick("unbuffered"))
        try sink.set("sync", false)
        if let flip { try bin.add(flip) }
        try bin.add(convert, encoder, parser, mux, sink)
        if let flip { try flip.link(to: convert) }
        try convert.link(to: encoder)
        var encoded = encoder
        if let profileCaps {
            try bin.add(profileCaps)
            try encoder.link(to: profileCaps)
            encoded = profileCaps
        }
        if let tap {
            try bin.add(tap.parser, tap.caps)
            try encoded.link(to: tap.parser)
            try tap.parser.link(to: tap.caps)
            encoded = tap.caps
        }
        try encoded.link(to: parser)
        try parser.link(to: mux)
        try mux.link(to: sink)

        let plumbing = try Plumbing(encoderSource: encoder.requiredPad("src"), muxerInput: parser.requiredPad("src"),
                                    muxerSource: mux.requiredPad("src"), burnIn: flip)
        try countCopies(through: convert)
        // Nothing before the first keyframe goes in (a recording must start decodable).
        let started = first
        plumbing.encoderSource.addProbe(.buffer) { [weak self] info in
            guard let self else { return .ok }
            return self.state.withLock { $0.stage.encoded(keyframe: info.isKeyframe) } ? .ok : .drop
        }
        // Count what the muxer gets: frames, first and last time (as running time: the
        // encoder may offset its timestamps). Frames past the recording's length stay out.
        let frameDuration = format.rate.perSecond > 0 ? ClockTime(Double(ClockTime.second) / format.rate.perSecond) : 0
        plumbing.muxerInput.addProbe(.buffer) { [weak self] muxInput, info in
            guard let self, let stamp = info.bufferPTS else { return .ok }
            let pts = muxInput.runningTime(of: stamp) ?? stamp
            let duration = info.bufferDuration ?? frameDuration
            guard self.chain.admits(pts: pts, duration: duration) else { return .drop }
            let action = self.state.withLock { s in
                // The tee's counts read now, while the frame is among the branch's recent entries.
                let entries = s.entries
                return s.stage.frame(pts: pts, end: pts + duration, now: { (Date(), WallClock.isSynchronized()) },
                                     counts: { entries.counts(at: pts) })
            }
            if case .first(let time) = action { started.succeed(time) }
            self.chain.changed()
            return .ok
        }
        state.withLock { $0.stage.built(plumbing) }
        if let stream = options.feeds {
            // After the keyframe gate: the stream gets the file's frames, from its first keyframe.
            let feed = try stream.attach(tap: parser.requiredPad("sink"))
            self.feed.withLock { $0 = (stream, feed) }
        }
        return BranchEnds(entry: flip ?? convert, sink: sink)
    }

    /// Counts what the tee gives this branch, at its entry (from its first frame on): before
    /// anything in the branch can drop a frame, after anything before the tee has. Between
    /// the file's first and last frame, the gaps between these frames are what the camera
    /// dropped, and the frames counted here but missing from the file were lost in the
    /// branch (its leaky queue behind a slow encoder, the encoder, a write that failed).
    public func willReceiveFrames(at pad: Pad, format: CaptureFormat, numbered: Bool) {
        state.withLock { $0.entries = BranchEntryLog(rate: format.rate, numbered: numbered) }
        _ = pad.addProbe(.buffer) { [weak self] entry, info in
            guard let self else { return .ok }
            let time = info.bufferPTS.map { entry.runningTime(of: $0) ?? $0 }
            let lengthEnd = self.chain.lengthEnd
            self.state.withLock { s in
                s.entries.add(offset: info.bufferOffset, time: time, lengthEnd: lengthEnd)
            }
            return .ok
        }
    }

    /// Counts the frames `convert` copies instead of passing them through (the same buffer
    /// on both pads), and notes the conversion when its two sides' formats differ.
    private func countCopies(through convert: Element) throws {
        _ = try convert.requiredPad("sink").addProbe(.buffer) { [weak self] sinkPad, info in
            guard let self else { return .ok }
            let needFormat = self.state.withLock { $0.conversion.entered(info.bufferIdentity) }
            if needFormat {
                let from = sinkPad.currentCaps?.structure(at: 0)?.string("format") ?? "?"
                self.state.withLock { $0.conversion.input(format: from) }
            }
            return .ok
        }
        _ = try convert.requiredPad("src").addProbe(.buffer) { [weak self] srcPad, info in
            guard let self else { return .ok }
            let first = self.state.withLock { $0.conversion.left(info.bufferIdentity) }
            if first {
                let to = srcPad.currentCaps?.structure(at: 0)?.string("format") ?? "?"
                self.state.withLock { $0.conversion.converted(to: to) }
            }
            return .ok
        }
    }

    /// Frames converted (copied) before the encoder: 0 when the encoder takes the camera's format.
    public var copiedFrames: Int { state.withLock { $0.conversion.copied } }

    /// Latches the first angle (a file has one matrix) and sends it to the muxer as its
    /// `image-orientation` tag, installing the matrix writer too where the muxer ignores the
    /// tag; or with `burnIn` turns the pixels by it (the matrix then stays identity).
    ///
    /// A failure leaves a file without its angle, which is still a recording (the facts carry
    /// the angle): it is recorded with the recording's failures (`Recording.rollOverFailures`).
    public func apply(rotation: RotationAngle) {
        guard let plumbing = state.withLock({ $0.stage.latch(rotation) }) else { return }
        do {
            if options.burnIn {
                // Before the first frame: the encoder is configured with the turned size.
                try plumbing.burnIn?.set("video-direction", EnumNick(rotation.videoDirection))
                return
            }
            try RecordingOrientationTag.send(rotation, before: plumbing.muxerInput)
            guard let writer = options.matrixWriter else { return }
            // Plumb's own rewrite only where the muxer does not write the matrix itself; another
            // writer (a hook given in the options) is always installed.
            if writer is MP4MatrixWriter && RecordingOrientationTag.muxerWritesMatrix { return }
            try writer.install(on: plumbing.muxerSource, angle: rotation)
            state.withLock { $0.rewritesMatrix = true }
        } catch {
            chain.record(failure: "\(url.lastPathComponent) may play unturned: could not give it \(rotation): \(error)")
        }
    }

    /// Whether the matrix writer of the options was installed on this file's muxer: false for
    /// Plumb's own where the muxer writes the matrix from the tag, and with `burnIn`.
    public var rewritesMatrix: Bool { state.withLock { $0.rewritesMatrix } }

    public func didAttach(requestTime: ClockTime?) {
        state.withLock {
            $0.requestTime = requestTime
            $0.requestDate = Date()
        }
        // Ask the encoder for a keyframe at the request: an upstream force-key-unit event
        // into its source pad. The branch is still held at its head queue here, so the
        // request is in place before the first frame reaches the encoder.
        state.withLock { $0.stage.attached() }?.encoderSource.send(.forceKeyUnit(allHeaders: true, count: 0))
    }

    /// Its frames no longer feed `RecordingOptions.feeds`: a handover to the next segment completes.
    private func stopFeeding() {
        if let (stream, feed) = feed.withLock({ f in defer { f = nil }; return f }) { stream.detach(feed) }
    }

    public func didDiscard() { stopFeeding() }

    public func didDetach(error: (any Error)?) {
        stopFeeding()
        guard let error else {
            // The branch is gone: let go of its pads.
            state.withLock { _ = $0.stage.ended(failure: nil) }
            first.fail(CaptureError.endedBeforeFirstFrame(output: kind))
            finished.succeed(facts())
            chain.changed()
            return
        }
        EncoderHealth.branchFailed(encoder: choice.encoder, element: "encoder", error: error)
        // Before the waiters hear of the failure, so that they find the facts.
        let facts = facts(failedWith: error)
        state.withLock { _ = $0.stage.ended(failure: facts) }
        first.fail(error)
        finished.fail(error)
        chain.changed()
    }

    // MARK: Facts

    /// The pipeline running time when the session took the request.
    public var requestTime: ClockTime? { state.withLock { $0.requestTime } }

    /// The first recorded frame's timestamp (running time), once it is in.
    public func firstFrameTime(timeout: Duration = .seconds(10)) async throws -> ClockTime {
        try await first.value(timeout: timeout, what: "the recording's first frame")
    }

    /// When the first frame (a keyframe) reached the muxer, on the wall clock.
    public var firstFrameWrittenAt: Date? { state.withLock { $0.stage.progress?.firstDate } }

    /// The running times of the first and the last frame the muxer got, once it got one.
    public var frameSpan: (first: ClockTime, last: ClockTime)? {
        state.withLock { $0.stage.progress.map { ($0.firstPTS, $0.lastPTS) } }
    }

    /// Frames and seconds recorded so far.
    public var progress: (frames: Int, seconds: Double) {
        state.withLock { $0.stage.progress.map { ($0.frames, $0.seconds) } ?? (0, 0) }
    }

    /// When the recording ended by itself (its branch failed, or the camera did): the file's
    /// facts as the file holds them, and why. Set before `finished` fails.
    public var factsAfterFailure: RecordingFacts? { state.withLock { $0.stage.failure } }

    /// The facts of a file whose branch failed: the frames a reader finds in it (the muxer
    /// was given more: on a full disk the fragment being written is lost), its length from
    /// them, and the cause. A fragment header the failure cut short is cut off first, or no
    /// reader would find any frame (the branch is down: nothing writes the file any more).
    private func facts(failedWith error: any Error) -> RecordingFacts {
        var unreadable: MediaError?
        do { _ = try MP4File.trimTornFragment(path: url.path) } catch { unreadable = error }
        var facts = facts()
        let rate = state.withLock { $0.rate.perSecond }
        do { facts.frames = try MP4File.videoSampleCount(path: url.path) } catch {
            facts.frames = 0
            unreadable = unreadable ?? error
        }
        let loss = lost(state.withLock { $0 }, frames: facts.frames)
        facts.setLost(camera: loss.camera, encoder: loss.encoder)
        facts.seconds = rate > 0 ? (Double(facts.frames) / rate * 1000).rounded() / 1000 : 0
        facts.error = cause(of: error)
        // A file never written (or removed) holds no frame: 0, as a reader finds, and no more
        // to say. One with bytes that cannot be read back says why its count is 0.
        if let unreadable, facts.bytes > 0 { facts.error? += "; its frames could not be counted: \(unreadable)" }
        return facts
    }

    /// The error in words a user acts on: a full disk says so (GStreamer's "No space left on
    /// the resource" names neither the disk nor the file).
    private func cause(of error: any Error) -> String {
        if case CaptureError.storageFull = error {
            return "No space left on device: cannot write \(url.path)"
        }
        return "\(error)"
    }

    /// The frames missing from the file between its first and its last frame: gaps in what
    /// the tee gave the branch (the camera's), and frames the branch got but the file did
    /// not (`frames` of them are in it). The counts at the first and the last frame are read
    /// as each reaches the muxer, while it is among the recent entries; failing that, the
    /// branch's totals stand in.
    private func lost(_ s: State, frames: Int) -> (camera: Int, encoder: Int) {
        guard let progress = s.stage.progress else { return (0, 0) }
        let start = progress.entriesBeforeFirst, last = progress.lastPTS
        let end = progress.entriesAtLast ?? (s.entries.entered, s.entries.lost)
        var camera = max(0, end.lost - start.lost)
        var encoder = max(0, end.entered - start.entered - frames)
        // A recording that reached its length (`record --seconds N`) spans it: the slots after
        // the last frame up to the end are missing too, the frames that entered in them lost
        // in the branch, the rest by the camera. (Only the recording's latest segment holds the end.)
        if let lengthEnd = chain.end, chain.isLatest(self) {
            let interval = s.rate.frameDuration
            let lastEnd = last + interval
            if lengthEnd > lastEnd + interval / 2 {
                let slots = Int((Double(lengthEnd - lastEnd) / Double(interval)).rounded())
                let atEnd = s.entries.atLengthEnd ?? (s.entries.entered, s.entries.lost)
                let entered = min(slots, max(0, atEnd.entered - end.entered))
                encoder += entered
                camera += slots - entered
            }
        }
        return (camera, encoder)
    }

    func facts() -> RecordingFacts {
        let s = state.withLock { $0 }
        let bytes = Path.size(url.path) ?? 0
        let progress = s.stage.progress
        let seconds = progress?.seconds ?? 0
        let angle = s.stage.angle ?? .degrees0
        // Burnt in: the file's frames are turned (a quarter turn swaps its size) and carry no rotation.
        let turned = options.burnIn && angle.swapsDimensions
        var facts = RecordingFacts(codec: choice.codec.rawValue, encoder: choice.encoder,
                               width: turned ? s.size.height : s.size.width,
                               height: turned ? s.size.width : s.size.height,
                               seconds: (seconds * 1000).rounded() / 1000, frames: progress?.frames ?? 0,
                               bytes: bytes, startedAt: (progress?.firstDate ?? s.requestDate).iso8601Milliseconds,
                               orientation: options.burnIn ? 0 : angle.degrees, file: url.path)
        if options.burnIn { facts.burnedIn = angle.degrees }
        if !choice.passedOver.isEmpty { facts.encoderPassedOver = choice.passedOver }
        if choice.fellBack { facts.encoderFallback = true }
        facts.pixelConversion = s.conversion.conversion
        let loss = lost(s, frames: progress?.frames ?? 0)
        facts.setLost(camera: loss.camera, encoder: loss.encoder)
        facts.clockSynchronized = progress?.clockSynchronized
        facts.controls = startControls.withLock { $0 }
        // Only a location the file really holds.
        if let writer = s.location, writer.statistics.headers > 0 { facts.set(writer.location) }
        return facts
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
