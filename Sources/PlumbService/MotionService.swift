import FoundationEssentials
import Glibc
import PlumbBase
import Synchronization
import Plumb

/// `[motion]` in the daemon: a `MotionOutput` on every session the daemon opens (a camera
/// switch keeps the session, and with it the output), each start and end a `motion` event,
/// its state in `GET /status`'s `motion`; with `[motion] event` a start triggers an event
/// clip as `POST /event` does, and continued motion extends it.
public final class MotionService: Sendable {
    let config: ServeConfig.Motion
    private let clips: EventClips
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void

    private struct State {
        var output: MotionOutput?
        /// Which attach the events come from: an older session's end is not this one's.
        var generation = 0
        var inMotion = false
        var lastStarted: String?
        var lastEnded: String?
        var starts = 0
        /// Keeps the clip going while motion lasts.
        var extender: Task<Void, Never>?
        /// The daemon is stopping: no more triggers.
        var stopped = false
        /// A trigger failed and none succeeded since: the next failures are not reported again.
        var failing = false
        /// The mask in force: `[motion] mask` until `PATCH /motion` sets another.
        var mask: [NormalizedRect]
    }
    private let state: Mutex<State>

    init(config: ServeConfig.Motion, clips: EventClips,
         publish: @escaping @Sendable (ServiceEvent) -> Void, log: @escaping @Sendable (String) -> Void) {
        self.config = config
        state = Mutex(State(mask: config.mask))
        self.clips = clips
        self.publish = publish
        self.log = log
    }

    /// How often continued motion re-triggers the clip: well within `[events] post-seconds`,
    /// so the clip never ends while motion lasts.
    var extendInterval: Duration {
        .milliseconds(Int((max(0.25, clips.config.postSeconds / 2) * 1000).rounded()))
    }

    /// Attaches a detector to a session the daemon just opened (nothing when `[motion]` is off).
    func attach(to session: CaptureSession) async throws {
        guard config.enabled else { return }
        var options = config.options
        options.masks = mask
        let output = try MotionOutput(options: options)
        try await session.attach(output)
        let generation = state.withLock { s in
            output.setMasks(s.mask)  // one PATCH /motion may have come since
            // The old session's motion ended with it.
            s.extender?.cancel()
            s.extender = nil
            s.inMotion = false
            s.output = output
            s.generation += 1
            return s.generation
        }
        let events = output.events
        Task { [weak self] in
            for await event in events { self?.report(event, generation: generation) }
            // Detached (the session closed): motion it saw ends with it, without an event.
            self?.state.withLock { s in
                guard s.generation == generation, s.inMotion else { return }
                s.inMotion = false
                s.extender?.cancel()
                s.extender = nil
            }
        }
    }

    /// The mask in force (rectangles of the upright picture).
    var mask: [NormalizedRect] { state.withLock { $0.mask } }

    /// A new mask for the running detector, from its next frame on, and for the detectors
    /// of sessions opened later (until the daemon stops: the config file keeps `[motion] mask`).
    func setMask(_ mask: [NormalizedRect]) {
        state.withLock { s in
            s.mask = mask
            s.output?.setMasks(mask)
        }
    }

    /// Whether motion lasts now, and where the newest motion frame saw it (nil before any).
    var sighting: (inMotion: Bool, last: MotionOutput.Sighting?) {
        state.withLock { ($0.inMotion, $0.output?.lastMotion) }
    }

    /// The daemon is stopping: motion triggers no more clips (the clips are cut by the stop).
    func stop() {
        state.withLock { s in
            s.stopped = true
            s.extender?.cancel()
            s.extender = nil
        }
    }

    private func report(_ event: MotionEvent, generation: Int) {
        let record = MotionRecord(event)
        let current = state.withLock { s -> Bool in
            guard s.generation == generation else { return false }
            s.extender?.cancel()
            s.extender = nil
            switch event.change {
            case .started:
                s.inMotion = true
                s.lastStarted = record.time
                s.starts += 1
                s.failing = false  // each stretch of motion says once why it has no clip
                if config.event, !s.stopped {
                    let cause = EventClipCause(startedBy: "motion", boxes: event.boxes)
                    s.extender = Task { [weak self] in await self?.keepClipGoing(cause) }
                }
            case .ended:
                s.inMotion = false
                s.lastEnded = record.time
                // The clip goes on for post-seconds after the motion's end, as after any trigger.
                if config.event, !s.stopped { Task { [weak self] in await self?.trigger(nil) } }
            }
            return true
        }
        guard current else { return }
        publish(.motion(record))
        log("motion \(record.motion) (\(String(cFormat: "%.1f", record.fraction * 100)) % of the picture, "
            + "\(record.boxes.count) region\(record.boxes.count == 1 ? "" : "s"))")
    }

    /// Triggers at once, then every `extendInterval` until cancelled (motion ended).
    private func keepClipGoing(_ cause: EventClipCause) async {
        await trigger(cause)
        while !Task.isCancelled {
            do { try await Task.sleep(for: extendInterval) } catch { return }
            await trigger(nil)
        }
    }

    /// A failure is reported once, not at every re-trigger while it lasts (a full disk would
    /// otherwise be an error event every `extendInterval`).
    private func trigger(_ cause: EventClipCause?) async {
        do {
            _ = try await clips.trigger(cause: cause)
            state.withLock { $0.failing = false }
        } catch {
            let first = state.withLock { s in
                defer { s.failing = true }
                return !s.failing
            }
            guard first else { return }
            publish(.error(message: "motion could not record an event clip: \(error.message)"))
            log("error: motion could not record an event clip: \(error.message)")
        }
    }

    /// `GET /status`'s `motion`: `enabled`, and (null when disabled) `state` (`idle` or
    /// `motion`), `last_started`, `last_ended`, `triggers` (motion starts) and
    /// `frames_analysed` and `lighting_changes` (by the current session's detector: frames
    /// it looked at, and those it took for a change of the light and re-learnt from).
    public var status: Status {
        state.withLock { s in
            guard config.enabled else { return Status(enabled: false) }
            return Status(enabled: true, state: s.inMotion ? "motion" : "idle", lastStarted: s.lastStarted,
                          lastEnded: s.lastEnded, triggers: s.starts, framesAnalysed: s.output?.framesAnalysed ?? 0,
                          lightingChanges: s.output?.lightingChanges ?? 0)
        }
    }

    public struct Status: Sendable, Encodable, Equatable {
        public var enabled: Bool
        public var state: String?
        public var lastStarted: String?
        public var lastEnded: String?
        public var triggers: Int?
        public var framesAnalysed: Int?
        public var lightingChanges: Int?

        enum CodingKeys: String, CodingKey {
            case enabled, state, lastStarted = "last_started", lastEnded = "last_ended", triggers
            case framesAnalysed = "frames_analysed", lightingChanges = "lighting_changes"
        }

        /// Every key, null when it has no value.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(enabled, forKey: .enabled)
            try c.encode(state, forKey: .state)
            try c.encode(lastStarted, forKey: .lastStarted)
            try c.encode(lastEnded, forKey: .lastEnded)
            try c.encode(triggers, forKey: .triggers)
            try c.encode(framesAnalysed, forKey: .framesAnalysed)
            try c.encode(lightingChanges, forKey: .lightingChanges)
        }
    }
}
