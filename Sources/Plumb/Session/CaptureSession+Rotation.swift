import FoundationEssentials
import Glibc
import PlumbRotation

/// Following a `RotationObserver`, as AVCam's `CaptureService` follows its rotation observer.
extension CaptureSession {
    /// Applies `observer`'s angles to every output from now on: the capture angle to stills
    /// and recordings, the preview angle to outputs that turn pixels for a display.
    ///
    /// - The observer's current angles are applied first, before this returns: its streams
    ///   report only changes, and the frames flowing now must already be upright.
    /// - Then a `RotationFollower` applies every later angle in the order it comes (each
    ///   stream keeps only its newest angle); outputs attached later get the stored angles
    ///   before their first frame.
    /// - The follower holds the session weakly: the observer can outlive it. Following
    ///   another observer (or the same one again), `stopFollowing()` and `close()` end it.
    ///   Other consumers of the same observer (another session, a daemon's events) are
    ///   not affected.
    /// - The observer is started if it was not.
    ///
    /// - Throws: `CaptureError.closed` (or what it failed of) when the session is not running.
    public func follow(_ observer: RotationObserver) throws {
        switch state {
        case .starting, .running, .awaitingSwitch, .switching: break
        case .failed, .closed: throw failure ?? CaptureError.closed
        }
        stopFollowing()
        following = RotationFollower(
            observer,
            seed: { setRotation($0) },
            capture: { [weak self] angle in await self?.setCaptureRotation(angle) },
            preview: { [weak self] angle in await self?.setPreviewRotation(angle) })
    }

    /// Stops applying a followed observer's angles; the last ones stay.
    public func stopFollowing() {
        following?.stop()
        following = nil
    }

    /// Whether an observer's angles are being applied.
    public var isFollowing: Bool { following != nil }

    /// Stores a new capture angle and applies it to the outputs that follow it.
    func setCaptureRotation(_ angle: RotationAngle) {
        guard !Task.isCancelled else { return }
        setRotation(RotationAngles(capture: angle, preview: previewRotation))
    }

    /// Stores a new preview angle and applies it to the outputs that follow it.
    func setPreviewRotation(_ angle: RotationAngle) {
        guard !Task.isCancelled else { return }
        setRotation(RotationAngles(capture: rotation, preview: angle))
    }
}
