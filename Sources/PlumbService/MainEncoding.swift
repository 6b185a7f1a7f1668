import Synchronization
import Plumb
import PlumbRotation

/// The daemon's encodings, and who takes which: one main encoding at recording quality
/// (`MainEncodingOutput`: the recording codec, a keyframe a second) that the pre-record ring
/// follows and that the preview relays whenever its pixels would be the same — the recording
/// codec is H.264 and no turn has to be burnt into them. Only while the device is turned
/// (or `[preview] on-demand = false` asks for the preview's own encoder) do the preview's
/// consumers take the preview's own encoding (`OnDemandPreview` on `turned`), which turns
/// the pixels.
///
/// The preview stream (`preview`: RTSP, WHEP, the publisher subscribe to it) never has an
/// encoder of its own: it relays `main` or `turned`, switching on a turn; its consumers
/// then wait for the new source's next keyframe, with its parameter sets, asked for at once.
/// WHEP viewers that take the turn as RTP metadata (their offer has the video-orientation
/// extension, as Chromium's does) need no turned pixels at all: they are fed by `unturned`,
/// which relays `main` whatever the angle while they watch, and get the angle from
/// `orientation` (set here at each turn) in every packet. So a turned device with only such
/// viewers runs one encoder; the turned encoder runs only for consumers that cannot take
/// the turn as metadata (RTSP, the publisher, other WebRTC peers). Only while the preview
/// can share at all (H.264, no own preview encoder forced) and its size need not stay fixed
/// (`[preview] letterbox`): otherwise those viewers too get the preview (`WHEPPreview` is
/// given no `unturned`).
///
/// The main branch is attached while something takes it: the ring (`pre-seconds` > 0), an
/// event clip from its trigger until it is written (`pre-seconds` = 0: `withClip`), a
/// preview consumer while the preview shares it, or such a viewer; with none for `linger`,
/// it is detached.
///
/// While the daemon records, the recording's encoder runs the main encoding instead
/// (`share`: its frames feed `main`, segment after segment), and the main branch is
/// detached once the recording has taken over; before the recording stops, the main branch
/// is attached again if something takes it, and takes over from the recording. Either way
/// the stream's handover (`EncodedStream`) loses and doubles no frame, so the ring and the
/// preview go on through both.
actor MainEncoding {
    nonisolated let main = EncodedStream()
    nonisolated let preview: EncodedStream
    nonisolated let turned: EncodedStream
    /// The main encoding relayed to the WHEP viewers that take the turn as metadata, while any
    /// watch: a stream of their own (not `main` itself) so its subscribers are those viewers
    /// alone and its `demandChanges()` wake this actor when they come and go, as the preview's do.
    nonisolated let unturned = EncodedStream()
    /// The turn those viewers get: the capture angle, followed here.
    nonisolated let orientation: VideoOrientation
    private nonisolated let recorder: EventRecorder
    /// The ring takes the main encoding all the time (`[events] pre-seconds` > 0).
    nonisolated let ringOn: Bool
    /// The preview may share the main encoding (H.264, and no own preview encoder forced).
    nonisolated let canShare: Bool
    nonisolated let linger: Duration
    private let log: @Sendable (String) -> Void
    private let clock = ContinuousClock()

    private var angle: RotationAngle
    private var session: CaptureSession?
    private var output: (MainEncodingOutput, number: Int)?
    private var outputs = 0
    private var ring: StreamSubscription?
    /// Event clips take the encoding (`pre-seconds` = 0): from a trigger until no trigger is
    /// under way and no clip is written. Read by `/status` from any thread.
    private nonisolated let clipTakes = Mutex(false)
    /// Triggers between their take and their clip's start: the take stays for them.
    private var clipTriggers = 0
    private var unneededSince: ContinuousClock.Instant?
    private var retryAt: ContinuousClock.Instant?
    private var timer: Task<Void, Never>?
    private var watches: [Task<Void, Never>] = []
    private var stopped = false
    private var reconciling = false
    private var again = false
    /// Whether the preview relays the main encoding now, for `/status` (any thread).
    private nonisolated let sharing = Mutex(false)
    /// `POST /clip`s taking the main encoding now (`clipEncoding`); read by `/status`.
    private nonisolated let apiClips = Mutex(0)
    /// The recordings whose encoder runs the main encoding now (`share`).
    private var recordings: Set<ObjectIdentifier> = []
    /// Recordings that said they stopped: a late `recordingFeeds` for one is no news.
    private var stoppedRecordings: [ObjectIdentifier] = []
    /// How long a recording's stop waits for the main branch to take over from it, and how
    /// often a recording taking over is looked at again.
    nonisolated let handoverLimit: Duration

    init(preview: EncodedStream, turned: EncodedStream, recorder: EventRecorder, ringOn: Bool, ownPreviewEncoder: Bool,
         angle: RotationAngle, linger: Duration = .seconds(5), handoverLimit: Duration = .seconds(5),
         log: @escaping @Sendable (String) -> Void) {
        self.preview = preview
        self.turned = turned
        self.recorder = recorder
        self.ringOn = ringOn
        canShare = recorder.choice.codec == .h264 && !ownPreviewEncoder
        self.angle = angle
        orientation = VideoOrientation(angle)
        self.linger = linger
        self.handoverLimit = handoverLimit
        self.log = log
    }

    /// What `WHEPPreview` feeds the viewers that take the turn as metadata from; nil when the
    /// preview cannot share the main encoding (then they get the preview's pixels).
    nonisolated var unturnedForWHEP: WHEPPreview.Unturned? {
        canShare ? WHEPPreview.Unturned(stream: unturned, orientation: orientation) : nil
    }

    /// What a recording needs to run the main encoding with its own encoder.
    nonisolated var share: ContinuousRecorder.EncodingShare {
        ContinuousRecorder.EncodingShare(stream: main, codec: recorder.choice.codec,
                                         feeding: { [weak self] id in await self?.recordingFeeds(id) },
                                         stopping: { [weak self] id in await self?.recordingStops(id) })
    }

    /// What a `POST /clip` takes for its time: the main encoding, started if nothing runs it.
    nonisolated var clipEncoding: SessionBackend.ClipEncoding {
        SessionBackend.ClipEncoding(take: { [self] in await takeForClip() }, release: { [weak self] in await self?.clipReleased() })
    }

    /// Whether the preview's consumers take the main encoding now.
    nonisolated var previewShares: Bool { sharing.withLock { $0 } }

    /// How long a trigger waits for the first keyframe when its clip starts the encoding.
    static let firstKeyframeLimit: Duration = .seconds(10)

    /// Who the main encoding feeds now ("ring", "event-clip" while one takes it, the
    /// preview's `previewFeeds` while shared, "whep" while viewers take the turn as metadata).
    nonisolated func feeds(preview previewFeeds: [String]) -> [String] {
        let feeds = (ringOn ? ["ring"] : []) + (clipTakes.withLock { $0 } ? ["event-clip"] : [])
            + (apiClips.withLock { $0 } > 0 ? ["clip"] : []) + (previewShares ? previewFeeds : [])
        return feeds + (unturned.subscriberCount > 0 && !feeds.contains("whep") ? ["whep"] : [])
    }

    /// Follows the preview's consumers, the viewers that take the turn as metadata and the
    /// capture angle, until `stop()`.
    func start(angles: AsyncStream<RotationAngle>) {
        for changes in [preview.demandChanges(), unturned.demandChanges()] {
            watches.append(Task { [weak self] in
                for await _ in changes { await self?.reconcile() }
            })
        }
        watches.append(Task { [weak self] in
            for await angle in angles { await self?.turned(to: angle) }
        })
    }

    func stop() {
        stopped = true
        for watch in watches { watch.cancel() }
        timer?.cancel()
        session = nil
        preview.stopRelay()
        unturned.stopRelay()
        sharing.withLock { $0 = false }
    }

    /// A new camera session: the main encoding goes on it when something takes it.
    func use(_ session: CaptureSession) async throws {
        self.session = session
        output = nil
        // A new session's running time starts again: the ring follows it afresh.
        if ring != nil {
            ring?.cancel()
            ring = recorder.follow(main)
        }
        retryAt = nil
        unneededSince = nil
        if ringOn {
            try await attach(to: session, why: "the pre-record ring ([events] pre-seconds = \(recorder.settings.preSeconds))")
        } else {
            log("encoder: no pre-record ring ([events] pre-seconds = 0): an event clip takes the main encoding for its time")
        }
        await reconcile()
    }

    /// Forgets `session` (it is closing: its branches go with it).
    func release(_ session: CaptureSession) {
        guard self.session === session else { return }
        self.session = nil
        output = nil
        timer?.cancel()
    }

    // MARK: Event clips

    /// Runs `trigger` (an event clip's start or extension) with the main encoding taken.
    /// Without a ring (`pre-seconds` = 0) the recorder follows the encoding from its next
    /// keyframe (asked for at once; the encoding is started if nothing runs it), and this
    /// waits for that keyframe first; the take ends once no trigger is under way and no clip
    /// is written (`clipWritten()`). With a ring the encoding runs anyway.
    func withClip<T: Sendable>(_ trigger: @Sendable () throws -> T) async throws -> T {
        guard !ringOn else { return try trigger() }
        clipTriggers += 1
        if !clipTakes.withLock({ $0 }) {
            clipTakes.withLock { $0 = true }
            // A trigger meanwhile finds the take there and follows nothing a second time.
            if ring == nil { ring = recorder.follow(main) }
            log("encoder: an event clip takes the main encoding (from its next keyframe, asked for at once)")
            await reconcile()
        }
        // None in time: the trigger says the recorder has no keyframe yet.
        try? await recorder.firstFrame(within: Self.firstKeyframeLimit)
        let result = Result { try trigger() }
        clipTriggers -= 1
        if case .failure = result { await clipWritten() }
        return try result.get()
    }

    /// After a clip is written (or a trigger failed): the clips' take ends when no clip is
    /// written and no trigger is under way; the encoding then lingers like any.
    func clipWritten() async {
        guard !ringOn, clipTriggers == 0, recorder.status.current == nil, clipTakes.withLock({ $0 }) else { return }
        clipTakes.withLock { $0 = false }
        ring?.cancel()
        ring = nil
        log("encoder: no event clip takes the main encoding any more (written, or its trigger failed)")
        await reconcile()
    }

    // MARK: Clips

    private func takeForClip() async -> (stream: EncodedStream, angle: RotationAngle, encoder: String) {
        let first = apiClips.withLock { n in
            n += 1
            return n == 1
        }
        if first { log("encoder: a clip (POST /clip) takes the main encoding") }
        await reconcile()
        return (main, angle, recorder.choice.encoder)
    }

    private func clipReleased() async {
        let last = apiClips.withLock { n in
            n = max(0, n - 1)
            return n == 0
        }
        if last { await reconcile() }
    }

    // MARK: Recordings

    /// A recording's encoder feeds the main encoding (its first frame is in): once it has
    /// taken over from the main branch, that branch goes.
    private func recordingFeeds(_ id: ObjectIdentifier) async {
        guard !stoppedRecordings.contains(id), recordings.insert(id).inserted else { return }
        if recordings.count == 1 { log("encoder: the recording's encoder runs the main encoding while it records") }
        // However long it takes (a busy machine): the branch goes only once the handover has
        // ended, and must go then, or two encoders would run and the branch's would be idle.
        var said = false
        while await !main.handoverEnded(within: handoverLimit), recordings.contains(id) {
            if !said {
                said = true
                log("encoder: the recording's encoder takes over the main encoding slowly (over \(handoverLimit)); "
                    + "the main branch runs until it has")
            }
        }
        await reconcile()
    }

    /// A recording is about to stop (or has ended): the main branch, if something takes it,
    /// takes over from it first.
    private func recordingStops(_ id: ObjectIdentifier) async {
        stoppedRecordings.append(id)
        if stoppedRecordings.count > 16 { stoppedRecordings.removeFirst() }
        guard recordings.remove(id) != nil else { return }
        await reconcile()
        _ = await main.handoverEnded(within: handoverLimit)
    }

    private func turned(to angle: RotationAngle) async {
        guard angle != self.angle else { return }
        self.angle = angle
        // The ring's clips get the angle whichever encoder runs the main encoding.
        recorder.set(angle: angle)
        orientation.angle = angle  // the next packet of every metadata viewer carries it
        await reconcile()
    }

    // MARK: Deciding

    private func reconcile() async {
        guard !reconciling else {
            again = true
            return
        }
        reconciling = true
        defer { reconciling = false }
        repeat {
            again = false
            await step()
        } while again
    }

    private func step() async {
        guard !stopped else { return }
        // The preview: relayed from the main encoding when its pixels are the same, else
        // from the turned one (whose encoder runs while that relay takes it).
        let watched = preview.subscriberCount > 0
        let shares = canShare && angle == .degrees0
        if watched {
            let source = shares ? main : turned
            if preview.relayedStream !== source {
                preview.relay(from: source)
                log(shares ? "preview: its consumers take the main encoding (no turn to burn in)"
                    : canShare ? "preview: the device is turned \(angle.degrees) degrees: its consumers take the preview's own, turned encoding"
                    : "preview: its consumers take the preview's own encoding")
            }
        } else {
            preview.stopRelay()
        }
        sharing.withLock { $0 = watched && shares }
        // The viewers that take the turn as metadata: on the main encoding, whatever the angle.
        let metadataWatched = canShare && unturned.subscriberCount > 0
        if metadataWatched {
            if unturned.relayedStream !== main {
                unturned.relay(from: main)
                log("webrtc: viewers that take the turn as RTP metadata take the main encoding (\(angle.degrees) degrees sent in every packet)")
            }
        } else {
            unturned.stopRelay()
        }
        guard let session else { return }

        let clip = clipTakes.withLock { $0 }, apiClip = apiClips.withLock { $0 } > 0
        let taken = ringOn || clip || apiClip || (watched && shares) || metadataWatched
        // A recording's encoder runs the main encoding: the branch is not needed for it.
        let needed = taken && recordings.isEmpty
        let now = clock.now
        if !needed, !recordings.isEmpty, let current = output?.0, !main.isHandingOver {
            output = nil
            unneededSince = nil
            timer?.cancel()
            log("encoder: \(current.choice.encoder) (\(current.choice.codec.rawValue)) of the main encoding stopped: "
                + "the recording's encoder runs it")
            try? await session.detach(current)
            return
        }
        if needed {
            unneededSince = nil
            timer?.cancel()
            if let current = output?.0, !current.feedsStream {
                // A handover to a recording let go of the branch, and the recording is ending
                // (or the encoding is needed again): a new branch takes over from it.
                output = nil
                log("encoder: \(current.choice.encoder) (\(current.choice.codec.rawValue)) of the main encoding no longer fed it: "
                    + "a new one takes over")
                try? await session.detach(current)
            }
            guard output == nil else { return }
            if let retryAt, now < retryAt { return wake(at: retryAt) }
            do {
                try await attach(to: session, why: ringOn ? "the pre-record ring"
                                 : clip ? "an event clip ([events] pre-seconds = 0)"
                                 : apiClip ? "a clip (POST /clip)"
                                 : watched && shares ? "the preview's consumers"
                                 : "WebRTC viewers that take the turn as RTP metadata")
            } catch {
                retryAt = now + OnDemandPreview.retryDelay
                log("encoder: the main encoding could not start: \(error); trying again")
                wake(at: now + OnDemandPreview.retryDelay)
            }
        } else if let current = output?.0 {
            guard let since = unneededSince else {
                unneededSince = now
                return wake(at: now + linger)
            }
            guard now - since >= linger else { return wake(at: since + linger) }
            output = nil
            unneededSince = nil
            log("encoder: \(current.choice.encoder) (\(current.choice.codec.rawValue)) of the main encoding stopped: "
                + "nothing took it for \(linger) (no pre-record ring, no event clip, "
                + (watched ? "the preview takes its own turned encoding)" : "no preview consumer or WebRTC viewer)"))
            try? await session.detach(current)
        }
    }

    private func attach(to session: CaptureSession, why: String) async throws {
        outputs += 1
        let number = outputs
        let recorder = self.recorder
        let output = MainEncodingOutput(choice: recorder.choice, stream: main, onAngle: { recorder.set(angle: $0) }) {
            [weak self] error in
            Task { await self?.branchEnded(number, error: error) }
        }
        // The ring follows the stream from its next keyframe; it goes on following it when this
        // branch takes over from a recording's encoder.
        if ring == nil, ringOn || clipTakes.withLock({ $0 }) { ring = recorder.follow(main) }
        self.output = (output, number)
        do {
            try await session.attach(output)
        } catch {
            if self.output?.number == number { self.output = nil }
            if !main.isAttached {
                ring?.cancel()
                ring = nil
            }
            throw error
        }
        retryAt = nil
        log("encoder: \(recorder.choice.encoder) (\(recorder.choice.codec.rawValue)) runs the main encoding for \(why)"
            + (canShare ? "; the preview shares it while no turn has to be burnt in"
                : recorder.choice.codec == .h264 ? "" : "; the preview (H.264) cannot share it"))
    }

    /// The main branch is gone: by `step`'s detach, its session closing, or a failure (then
    /// it is attached again, after a pause, if still needed).
    private func branchEnded(_ number: Int, error: (any Error)?) async {
        // Nothing feeds the stream any more: the ring starts again with whatever feeds it next.
        if ring != nil, output == nil || output?.number == number, !main.isAttached {
            ring?.cancel()
            ring = nil
        }
        guard let current = output, current.number == number else { return }
        output = nil
        if let error {
            log("encoder: the main encoding stopped: \(error); starting it again if needed")
            retryAt = clock.now + OnDemandPreview.retryDelay
        }
        await reconcile()
    }

    private func wake(at deadline: ContinuousClock.Instant) {
        timer?.cancel()
        timer = Task { [weak self] in
            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
            await self?.reconcile()
        }
    }
}
