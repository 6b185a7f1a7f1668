import GStreamer

/// One V4L2 camera's controls: listed with their values, set by `name=value` as one checked
/// batch, locked and released. Opens its own handle on the node, so it works next to the
/// v4l2src that streams from it.
public final class CameraControls: @unchecked Sendable {
    public let device: V4L2ControlDevice
    public let controls: [V4L2ControlInfo]

    /// Opens `path` and lists its controls.
    public init(path: String) throws(CameraControlError) {
        do {
            device = try V4L2ControlDevice(path: path)
            controls = try device.controls()
        } catch {
            throw .driver(error)
        }
    }

    /// The current values (write-only buttons and class headings have none).
    public func values() -> [UInt32: V4L2ControlValue] { device.values(of: controls) }

    /// Checks `request` against this camera and sets it whole, or nothing of it. Returns the
    /// names this camera lacks when `skipMissing` (a camera switched to), for the log.
    @discardableResult
    public func apply(_ request: CameraControlRequest, skipMissing: Bool = false) throws(CameraControlError) -> [String] {
        let resolved = try request.resolve(against: controls, skipMissing: skipMissing)
        do { try device.set(resolved.changes) } catch { throw .driver(error) }
        return resolved.missing
    }

    /// What a batch did: the controls it set as listed after it (a mode set changes others'
    /// flags), with the values read back (a driver may round them or change them under auto),
    /// and the names the camera lacks (when told to skip them).
    public struct Applied: Sendable {
        public var controls: [CameraControlEntry]
        public var missing: [String]
    }

    /// `apply`, answering what was set as the driver has it now.
    public func set(_ request: CameraControlRequest, skipMissing: Bool = false) throws(CameraControlError) -> Applied {
        let resolved = try request.resolve(against: controls, skipMissing: skipMissing)
        do { try device.set(resolved.changes) } catch { throw .driver(error) }
        return Applied(controls: readBack(Set(resolved.changes.map(\.0.id))), missing: resolved.missing)
    }

    /// Every control (class headings and disabled ones left out) with its current value.
    public func entries() -> [CameraControlEntry] {
        let values = values()
        return controls.filter { $0.kind != .controlClass && !$0.flags.contains(.disabled) }.map { CameraControlEntry($0, values[$0.id]) }
    }

    /// The controls `ids` as the driver lists them now, with their values.
    private func readBack(_ ids: Set<UInt32>) -> [CameraControlEntry] {
        let fresh = ((try? device.controls()) ?? controls).filter { ids.contains($0.id) }
        let values = device.values(of: fresh)
        return fresh.map { CameraControlEntry($0, values[$0.id]) }
    }

    /// A lock taken (`freeze()`): the settings that set it again on a camera opened later and
    /// those that undo it, by driver name, and the controls it changed, read back.
    public struct Frozen: Sendable {
        public var again: CameraControlRequest
        public var undo: CameraControlRequest
        public var changed: [CameraControlEntry]
    }

    /// `lock()`, as settings that outlive this handle.
    public func freeze() throws(CameraControlError) -> Frozen {
        let lock = try lock()
        func settings(_ batch: [(V4L2ControlInfo, V4L2ControlValue)]) -> CameraControlRequest {
            CameraControlRequest(assignments: batch.map { ($0.0.name, $0.1.description) })
        }
        return Frozen(again: settings(lock.freeze), undo: settings(lock.release), changed: readBack(Set(lock.freeze.map(\.0.id))))
    }

    /// Freezes the auto modes at their current values; the lock's `release` undoes it.
    public func lock() throws(CameraControlError) -> CameraControlLock {
        let lock = CameraControlLock(controls: controls, values: values())
        do { try device.set(lock.freeze) } catch { throw .driver(error) }
        return lock
    }

    public func release(_ lock: CameraControlLock) throws(CameraControlError) {
        do { try device.set(lock.release) } catch { throw .driver(error) }
    }
}
