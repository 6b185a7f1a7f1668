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
