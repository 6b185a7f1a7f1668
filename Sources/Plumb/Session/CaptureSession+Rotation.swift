import Foundation

/// Following a `RotationObserver`, as AVCam's `CaptureService` follows its rotation observer.
extension CaptureSession {
    /// Applies `observer`'s angles to every output from now on: the capture angle to stills
    /// and recordings, the preview angle to outputs that turn pixels for a display.
    ///
    /// - The observer's current angles are applied first, before observing: its streams
    ///   report only changes, and the frames flowing now must already be upright.
    /// - Then one task consumes both streams (each keeps only its newest angle) and applies
    ///   every angle in the order it comes; outputs attached later get the stored angles
    ///   before their first frame.
    /// - The task holds the session weakly: the observer can outlive it. Following another
    ///   observer, `stopFollowing()` and `close()` end it.
    /// - The observer is started if it was not.
    ///
    /// - Throws: `CaptureError.invalidArgument` for an observer already followed (its
    ///   streams have a single consumer), `CaptureError.closed` on a closed session.
    public func follow(_ observer: RotationObserver) throws {
        guard phase == .running || phase == .starting else { throw failure ?? CaptureError.closed }
        let id = ObjectIdentifier(observer)
        guard !followed.contains(id) else {
            throw CaptureError.invalidArgument("this RotationObserver is or was already followed: its angle streams have "
                                               + "one consumer; make a new observer to follow again")
        }
        followed.insert(id)
        stopFollowing()
        // The angles as they are now: the streams below only say when they change.
        setRotation(observer.angles)
        let captureAngles = observer.captureAngles
        let previewAngles = observer.previewAngles
        following = Task { [weak self] in
            await withDiscardingTaskGroup { group in
                group.addTask { [weak self] in
                    for await angle in captureAngles {
                        guard let self else { return }
                        await self.setCaptureRotation(angle)
                    }
                }
                group.addTask { [weak self] in
                    for await angle in previewAngles {
                        guard let self else { return }
                        await self.setPreviewRotation(angle)
                    }
                }
            }
        }
        observer.start()
    }

    /// Stops applying a followed observer's angles; the last ones stay.
    public func stopFollowing() {
        following?.cancel()
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
