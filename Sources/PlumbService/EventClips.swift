import FoundationEssentials
import Glibc
import Soup
import Synchronization
import Plumb

/// Event clips in `plumb serve`: the engine's `EventRecorder` with the recordings folder's
/// names, `POST /event?post-seconds=N`, SIGUSR2, the `event` event and `/status`'s `events`.
///
/// A clip is written as `.event-tmp-event-DATE.mp4` (hidden: never listed, served or
/// repaired while it grows) and renamed to `event-DATE.mp4` when finished; at start-up a
/// temporary file a crash left gets its real name before the repair runs, so it is made a
/// normal MP4 (or moved to `damaged/`) like any recording.
public final class EventClips: Sendable {
    public let recorder: EventRecorder
    public let folder: RecordingsFolder
    public let config: ServeConfig.Events
    private let log: @Sendable (String) -> Void
    /// Says whether there is room for a clip (as for `POST /clip`); nil: not checked.
    private let retention: Retention?
    /// Where triggers find the running camera session; nil: not attached by these clips.
    private let camera: CameraSlot?
    /// The encoding the recorder follows (set by the daemon once made): with
    /// `pre-seconds = 0` each clip takes it for its time (`MainEncoding.withClip`).
    let encoding: Later<MainEncoding>
    /// What started the clips being written, when not a request (`[motion] event`).
    private let causes: EventClipCauses

    /// - Parameter tracker: told of each clip's file while it is written (retention's
    ///   "files in use").
    /// - Parameter retention: makes room and refuses a trigger (507) when there is none.
    /// - Parameter camera: where a trigger finds the camera running (503 at once when it is
    ///   not) before it takes the main encoding with `pre-seconds` = 0.
    public init(config: ServeConfig.Events, codec: VideoCodec, folder: RecordingsFolder,
                tracker: (any EventFileTracker)? = nil, retention: Retention? = nil, camera: CameraSlot? = nil,
                publish: @escaping @Sendable (ServiceEvent) -> Void, log: @escaping @Sendable (String) -> Void) throws {
        self.config = config
        self.folder = folder
        self.log = log
        self.retention = retention
        self.camera = camera
        let encoding = Later<MainEncoding>()
        self.encoding = encoding
        let causes = EventClipCauses()
        self.causes = causes
        recorder = try EventRecorder(settings: config.settings(codec: codec), tracker: tracker, finished: { facts in
            if let main = encoding.value { Task { await main.clipWritten() } }
            if let cause = causes.take(for: facts.file) {
                publish(.eventClip(file: facts.file, facts: CausedEventClipFacts(facts: facts, cause: cause)))
            } else {
                publish(.eventClip(file: facts.file, facts: facts))
            }
            if let error = facts.error {
                log("error: event clip \(facts.file): \(error)")
            } else {
                log("event clip saved: \(facts.file) (\(facts.frames) frames, \(facts.seconds) s, "
                    + "\(facts.triggers.count) trigger\(facts.triggers.count == 1 ? "" : "s"))")
            }
        })
    }

    /// A trigger's answer: the clip's facts, which trigger this was, and whether it
    /// extended the clip being written.
    public struct Answer: Sendable, Encodable {
        public var facts: EventClipFacts
        public var extended: Bool

        enum Keys: String, CodingKey { case extended, trigger }

        public func encode(to encoder: any Encoder) throws {
            try facts.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(extended, forKey: .extended)
            try c.encode(facts.triggers.last, forKey: .trigger)
        }
    }

    /// Starts or extends a clip; `postSeconds` nil takes `[events] post-seconds`; `cause`
    /// goes into the facts of a clip this trigger starts (not one it extends).
    /// - Throws: 507 when the folder has no room for it, even after retention (as `/clip`).
    public func trigger(postSeconds: Double? = nil, cause: EventClipCause? = nil) async throws(APIError) -> Answer {
        if let retention {
            retention.run(because: "an event trigger")
            if let why = retention.noRoom() { throw .insufficientStorage("no event clip: \(why)") }
        }
        do {
            let folder = self.folder, recorder = self.recorder
            let causes = self.causes
            let make: @Sendable () throws -> EventRecorder.Trigger = {
                // Told before the clip can finish (a 0-second clip may finish at once).
                try recorder.trigger(postSeconds: postSeconds) {
                    let files = Self.newClip(in: folder)
                    if let cause { causes.set(cause, for: files.target.lastPathComponent) }
                    return files
                }
            }
            let trigger: EventRecorder.Trigger
            if let main = encoding.value, let camera {
                _ = try camera.session()
                trigger = try await main.withClip(make)
            } else {
                trigger = try make()
            }
            if trigger.extended {
                log("event: \(trigger.facts.file) extended to \(trigger.facts.endsAt)")
            } else {
                log("event: recording \(trigger.facts.file) from \(trigger.facts.firstFrameAt)")
            }
            return Answer(facts: trigger.facts, extended: trigger.extended)
        } catch CaptureError.notAttached {
            throw .cameraUnavailable("no event clip: the camera has not delivered a keyframe yet (GET /status says why); "
                                     + "try again once it runs")
        } catch let error as APIError {
            throw error
        } catch CaptureError.closed {
            throw .cameraUnavailable("plumb serve is stopping: no new event clip")
        } catch {
            throw APIError.from(error)
        }
    }

    /// A new clip's file and its temporary file, neither of which exists: a clip of the same
    /// second may still be under its temporary name (triggers are serialized, and the
    /// temporary file exists from its clip's start until the rename makes it the real one).
    static func newClip(in folder: RecordingsFolder, date: Date = Date()) -> (target: URL, temporary: URL) {
        // The folder's name for the date (`event-2026-11-29T21-04-05Z`: the date's form has a
        // fixed length), without the `-N` it adds for a file that exists: the numbering below
        // also counts temporary files.
        let first = URL(fileURLWithPath: folder.newFile(extension: "mp4", date: date, prefix: "event-")).lastPathComponent
        let stem = String(first.prefix("event-".count + "2026-11-29T21-04-05Z".count))
        var name = stem + ".mp4"
        var n = 2
        while FileManager.default.fileExists(atPath: folder.path + "/" + name)
                || FileManager.default.fileExists(atPath: folder.path + "/" + EventRecorder.temporaryPrefix + name) {
            name = "\(stem)-\(n).mp4"
            n += 1
        }
        return (URL(fileURLWithPath: folder.path + "/" + name),
                URL(fileURLWithPath: folder.path + "/" + EventRecorder.temporaryPrefix + name))
    }

    /// `POST /event[?post-seconds=N]`.
    public func addRoutes(to router: inout Router) {
        router.post("/event") { [self] request in
            let post = try Self.postSeconds(request.query["post-seconds"], max: config.maxSeconds)
            return .json(try await trigger(postSeconds: post))
        }
    }

    /// nil when not given; 400 unless a number of seconds from 0 to `max`.
    static func postSeconds(_ text: String?, max: Double) throws(APIError) -> Double? {
        guard let text else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0, value <= max,
              text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else {
            throw .badRequest("post-seconds=\(text) is out of range: use a number of seconds from 0 to "
                              + "\(max == max.rounded() ? String(Int(max)) : String(max)) ([events] max-seconds)")
        }
        return value
    }

    /// Before the start-up repair: temporary clip files a crash left get their real names,
    /// which are returned.
    @discardableResult
    public func recoverLeftovers() -> [String] {
        let names = EventRecorder.recoverLeftovers(in: folder.path)
        for name in names {
            log("event clip \(name) was cut by a crash: kept under its real name for the repair")
        }
        return names
    }
}

/// A value set once after the closures that read it were made.
final class Later<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)
    var value: Value? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
