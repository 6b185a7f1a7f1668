import Plumb

/// When the event recorder's own branch (its encoder) is on the camera's session. With
/// `[events] pre-seconds` above 0 the daemon's ring follows the main encoding instead
/// (`MainEncoding`, attached with the camera: the ring must hold the seconds before a
/// trigger nobody knows is coming), and this attaches nothing. With 0 nothing
/// needs it between clips, so it is attached for a trigger (the clip starts at its first
/// keyframe) and detached once the clip is written and no trigger is under way: no
/// encoder runs for nothing.
actor EventRingAttachment {
    private let recorder: EventRecorder
    let onDemand: Bool
    private let log: @Sendable (String) -> Void
    private var attached: (session: CaptureSession, output: EventRingOutput)?
    /// Triggers between their attach and their clip's start: the branch stays for them.
    private var triggering = 0

    /// How long a trigger waits for the first keyframe of a branch it attached.
    static let firstKeyframeLimit: Duration = .seconds(10)

    init(recorder: EventRecorder, preSeconds: Double, log: @escaping @Sendable (String) -> Void) {
        self.recorder = recorder
        onDemand = preSeconds == 0
        self.log = log
    }

    /// A new camera session: the ring's branch goes on it now, unless it is on demand.
    func sessionOpened(_ session: CaptureSession) async throws {
        attached = nil  // the old session is gone with its branch
        guard !onDemand else {
            log("encoder: no pre-record encoder runs ([events] pre-seconds = 0): event clips start one for their time")
            return
        }
        let output = recorder.output()
        try await session.attach(output)
        attached = (session, output)
        log("encoder: \(recorder.choice.encoder) (\(recorder.choice.codec.rawValue)) runs for the pre-record ring "
            + "([events] pre-seconds = \(recorder.settings.preSeconds))")
    }

    /// Runs `trigger` with the branch on `session`: attached first when it is on demand and
    /// not there, waiting for its first keyframe.
    func withRing<T: Sendable>(on session: CaptureSession, _ trigger: @Sendable () throws -> T) async throws -> T {
        guard onDemand else { return try trigger() }
        triggering += 1
        let result: Result<T, any Error>
        do {
            if attached?.session !== session {
                // Taken before the await: a trigger that comes meanwhile attaches no second branch.
                let output = recorder.output()
                attached = (session, output)
                do {
                    try await session.attach(output)
                } catch {
                    if attached?.output === output { attached = nil }
                    throw error
                }
                log("encoder: \(recorder.choice.encoder) (\(recorder.choice.codec.rawValue)) started for an event clip")
            }
            // None in time: the trigger says the recorder has no keyframe yet.
            try? await recorder.firstFrame(within: Self.firstKeyframeLimit)
            result = .success(try trigger())
        } catch {
            result = .failure(error)
        }
        triggering -= 1
        if case .failure = result { await releaseIfIdle() }
        return try result.get()
    }

    /// After a clip is written: an on-demand branch goes when no clip records and no
    /// trigger is under way.
    func releaseIfIdle() async {
        guard onDemand, triggering == 0, recorder.status.current == nil, let (session, output) = attached else { return }
        attached = nil
        do {
            try await session.detach(output)
            log("encoder: \(recorder.choice.encoder) for event clips stopped (the clip is written; [events] pre-seconds = 0)")
        } catch {
            // The session closed meanwhile: its branches went with it.
        }
    }
}
