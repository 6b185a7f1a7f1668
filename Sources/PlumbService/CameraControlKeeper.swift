import FoundationEssentials
import Glibc
import Synchronization
import Plumb

/// The camera controls `plumb serve` keeps: `[camera] controls`, then every value set by
/// `PATCH /controls` and the lock's, set again whenever a camera opens (at start, after it
/// reconnects, after `POST /camera` switches it) — for the controls that camera has; the
/// names it lacks are logged and shown in `/status`, not failed. Operations are short
/// ioctls on a handle of their own, one at a time (the lock below).
public final class CameraControlKeeper: Sendable {
    /// What `/status` shows under `controls`.
    public struct Status: Sendable, Equatable, Encodable {
        /// The settings set on every camera opened, `name=value`, in order.
        public var kept: [String]
        /// Names the current camera lacks (or all, for a camera without controls).
        public var notApplied: [String]
        /// Why the last application failed or was partial; nil when all went on.
        public var problem: String?
        /// Whether `POST /controls/lock` holds auto exposure, focus and white balance.
        public var locked: Bool

        enum CodingKeys: String, CodingKey {
            case kept, notApplied = "not_applied", problem, locked
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(kept, forKey: .kept)
            try c.encode(notApplied, forKey: .notApplied)
            try c.encode(problem, forKey: .problem)
            try c.encode(locked, forKey: .locked)
        }
    }

    /// A wrong `[camera] controls` value on the camera at start: a setting to fix.
    public struct Refused: Error, Sendable, CustomStringConvertible {
        public var error: CameraControlError
        public var description: String { "[camera] controls: \(error)" }
    }

    private struct State {
        var kept: [(name: String, value: String)]
        /// The lock's freeze by driver name (set again on a new camera), and what undoes it.
        var frozen: CameraControlRequest?
        var release: CameraControlRequest?
        var notApplied: [String] = []
        var problem: String?
    }

    private let state: Mutex<State>
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void

    public init(config: CameraControlRequest?, publish: @escaping @Sendable (ServiceEvent) -> Void,
                log: @escaping @Sendable (String) -> Void) {
        state = Mutex(State(kept: config?.assignments ?? []))
        self.publish = publish
        self.log = log
    }

    public var status: Status {
        state.withLock { s in
            Status(kept: s.kept.map { "\($0.name)=\($0.value)" }, notApplied: s.notApplied, problem: s.problem,
                   locked: s.frozen != nil)
        }
    }

    // MARK: A camera opened

    /// Sets the kept controls (and a held lock) on the camera `session` just opened or
    /// switched to. A camera without controls, or names it lacks, are reported; a value it
    /// refuses is reported too, and returned (at start that ends `plumb serve`).
    public func cameraOpened(_ session: CaptureSession) -> Refused? {
        let (event, refused) = state.withLock { s -> ([String: CameraControlEntry.Value], Refused?) in
            let wanted = s.kept + (s.frozen?.assignments ?? [])
            s.notApplied = []
            s.problem = nil
            guard !wanted.isEmpty else { return ([:], nil) }
            guard case .device(let device) = session.camera else {
                s.notApplied = wanted.map(\.name)
                s.problem = CameraControlError.noControls(camera: session.camera.identifier).description
                log("controls: not set: \(s.problem!)")
                return ([:], nil)
            }
            do throws(CameraControlError) {
                let controls = try CameraControls(path: device.path)
                let resolved = try controls.set(CameraControlRequest(assignments: wanted), skipMissing: true)
                s.notApplied = resolved.missing
                if !resolved.missing.isEmpty {
                    s.problem = "camera \(device.path) has no \(resolved.missing.joined(separator: ", ")) control"
                        + (resolved.missing.count == 1 ? "" : "s")
                    log("controls: not set: \(s.problem!)")
                }
                let values = Self.event(resolved.controls)
                if !values.isEmpty {
                    log("controls set on \(device.path): " + values.keys.sorted().map { "\($0)=\(values[$0]!.value)" }.joined(separator: ", "))
                }
                return (values, nil)
            } catch {
                s.notApplied = wanted.map(\.name)
                s.problem = "not set on \(device.path): \(error)"
                return ([:], Refused(error: error))
            }
        }
        if !event.isEmpty { publish(.controls(event)) }
        if refused != nil, let problem = status.problem {
            publish(.error(message: "controls: \(problem)"))
            log("error: controls: \(problem)")
        }
        return refused
    }

    // MARK: The API

    /// What `GET /controls` answers.
    public struct Listing: Sendable, Encodable {
        /// The camera's device path; nil for a camera without controls.
        public var camera: String?
        public var controls: [CameraControlEntry]
        /// Why the list is empty (a camera without V4L2 controls); nil when it is not.
        public var reason: String?
        public var status: Status
    }

    /// The current camera's controls with their values (none, with why, for the test camera).
    public func list(_ session: CaptureSession) throws(CameraControlError) -> Listing {
        guard case .device(let device) = session.camera else {
            return Listing(camera: nil, controls: [], reason: CameraControlError.noControls(camera: session.camera.identifier).description,
                           status: status)
        }
        let entries = try state.withLock { _ throws(CameraControlError) in try CameraControls(path: device.path).entries() }
        return Listing(camera: device.path, controls: entries, reason: nil, status: status)
    }

    /// `PATCH /controls`: `assignments` checked and set as one batch on the current camera
    /// (all or nothing), then kept for the cameras opened later. Returns the controls set,
    /// with the values read back (a driver may round or override them).
    public func set(_ assignments: [(name: String, value: String)], on session: CaptureSession) throws(CameraControlError) -> [CameraControlEntry] {
        guard case .device(let device) = session.camera else { throw .noControls(camera: session.camera.identifier) }
        let (entries, event) = try state.withLock { s throws(CameraControlError) in
            let controls = try CameraControls(path: device.path)
            let applied = try controls.set(CameraControlRequest(assignments: assignments))
            for (name, value) in assignments.map({ ($0.name.lowercased(), $0.value) }) {
                s.kept.removeAll { $0.name == name }
                s.kept.append((name, value))
            }
            return (applied.controls, Self.event(applied.controls))
        }
        log("controls set by PATCH /controls: " + assignments.map { "\($0.name)=\($0.value)" }.joined(separator: ", "))
        if !event.isEmpty { publish(.controls(event)) }
        return entries
    }

    /// `POST /controls/lock`: auto exposure, gain, focus and white balance switched to
    /// manual at the values they reached; held (and set again on a new camera) until
    /// `unlock`. Returns the controls it changed, read back.
    public func lock(_ session: CaptureSession) throws(CameraControlError) -> [CameraControlEntry] {
        guard case .device(let device) = session.camera else { throw .noControls(camera: session.camera.identifier) }
        let (entries, event) = try state.withLock { s throws(CameraControlError) in
            let controls = try CameraControls(path: device.path)
            let frozen = try controls.freeze()
            s.frozen = frozen.again
            s.release = frozen.undo
            return (frozen.changed, Self.event(frozen.changed))
        }
        log("controls locked: " + (entries.isEmpty ? "no auto mode was on" : entries.map { "\($0.name)=\($0.value.map { "\($0.value)" } ?? "?")" }.joined(separator: ", ")))
        if !event.isEmpty { publish(.controls(event)) }
        return entries
    }

    /// `DELETE /controls/lock`: the auto modes put back as they were; nil when no lock is held.
    public func unlock(_ session: CaptureSession) throws(CameraControlError) -> [CameraControlEntry]? {
        let done = try state.withLock { s throws(CameraControlError) -> ([CameraControlEntry], [String: CameraControlEntry.Value])? in
            guard s.frozen != nil else { return nil }
            var result: ([CameraControlEntry], [String: CameraControlEntry.Value]) = ([], [:])
            if case .device(let device) = session.camera, let release = s.release, !release.assignments.isEmpty {
                let applied = try CameraControls(path: device.path).set(release, skipMissing: true)
                result = (applied.controls, Self.event(applied.controls))
            }
            s.frozen = nil
            s.release = nil
            return result
        }
        guard let (entries, event) = done else { return nil }
        log("controls unlocked")
        if !event.isEmpty { publish(.controls(event)) }
        return entries
    }

    /// The `controls` event's data: driver name → the value read back.
    private static func event(_ entries: [CameraControlEntry]) -> [String: CameraControlEntry.Value] {
        var event: [String: CameraControlEntry.Value] = [:]
        for entry in entries { if let value = entry.value { event[entry.name] = value } }
        return event
    }
}
