import Synchronization

/// Frames per second measured at the tee, from (time, frame count) samples the camera
/// supervisor takes about once a second; the rate over the last few seconds.
public final class FPSMeter: Sendable {
    private let samples = Mutex<[(time: ContinuousClock.Instant, frames: Int)]>([])
    private let window: Int

    public init(window: Int = 5) { self.window = window }

    public func add(frames: Int, at time: ContinuousClock.Instant = .now) {
        samples.withLock { s in
            if let last = s.last, frames < last.frames { s.removeAll() }  // a new session
            s.append((time, frames))
            if s.count > window + 1 { s.removeFirst(s.count - window - 1) }
        }
    }

    public func reset() { samples.withLock { $0.removeAll() } }

    public var framesPerSecond: Double? {
        samples.withLock { s in
            guard let first = s.first, let last = s.last, last.frames > first.frames else { return nil }
            let elapsed = last.time - first.time
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return seconds > 0 ? Double(last.frames - first.frames) / seconds : nil
        }
    }
}
