import FoundationEssentials
import Glibc
import Synchronization

/// Drives a `RotationCoordinator` from an accelerometer and publishes the angles.
///
/// As in AVCam, a consumer applies the current `angles` once when it starts following,
/// then consumes `captureAngles()` / `previewAngles()`, which report only later changes
/// (it takes the streams just before reading `angles`, so that no change falls between).
/// Each call makes a stream for one more consumer, any number of them; each keeps only
/// its newest angle (`bufferingNewest(1)`), so a consumer that falls behind a storm of
/// rotations still ends on the latest angle. `RotationFollower` does all this for
/// whatever applies the angles. Events are handled one at a time, in order, on one
/// task. A debounce is completed by a timer when no further sample arrives. A sensor
/// that disappears is reported in `sensorStatus` and the last angles hold.
public final class RotationObserver: Sendable {
    public enum SensorStatus: Sendable, Equatable, CustomStringConvertible {
        /// Not started, or no word from the sensor yet.
        case waiting
        case available(String)
        /// Unreadable or gone; the last angles hold.
        case unavailable(String)
        /// The source has nothing more to report (a replay's end, a fixed angle).
        case ended

        public var description: String {
            switch self {
            case .waiting: return "waiting"
            case .available(let name): return "available: \(name)"
            case .unavailable(let why): return "unavailable: \(why)"
            case .ended: return "ended"
            }
        }
    }

    /// What the observer saw, for diagnostics (`plumb rotation`).
    public enum Report: Sendable, Equatable, CustomStringConvertible {
        case event(AccelerometerEvent)
        case angles(RotationAngles)
        case ended

        public var description: String {
            switch self {
            case .event(let e): return e.description
            case .angles(let a): return "angles: \(a)"
            case .ended: return "accelerometer ended"
            }
        }
    }

    /// Counts of what the source delivered.
    public struct Counters: Sendable, Equatable {
        public var samples = 0
        public var dropped = 0
        public var droppedByReason: [String: Int] = [:]
        public var changes = 0
    }

    private struct State {
        var coordinator: RotationCoordinator
        var status = SensorStatus.waiting
        var counters = Counters()
        var driver: Task<Void, Never>?
        var feeder: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var timerDeadline: Duration?
        var lastSampleTime: Duration = .zero
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var ended = false
        var started = false
    }

    private enum Input: Sendable {
        case event(AccelerometerEvent)
        case tick(Duration)
        case sourceEnded
    }

    private let accelerometer: any Accelerometer
    private let state: Mutex<State>
    // Yielded to with `state` held, so every consumer gets the changes in the order the
    // coordinator made them, whichever thread made them (the driver, `setDisplayRotation`).
    private let captureFanout = StreamFanout<RotationAngle>(bufferingPolicy: .bufferingNewest(1))
    private let previewFanout = StreamFanout<RotationAngle>(bufferingPolicy: .bufferingNewest(1))
    private let reportFanout = StreamFanout<Report>(bufferingPolicy: .bufferingNewest(1024))

    public init(accelerometer: any Accelerometer,
                configuration: RotationCoordinator.Configuration = .init(),
                initialDeviceRotation: RotationAngle = .degrees0) {
        self.accelerometer = accelerometer
        state = Mutex(State(coordinator: RotationCoordinator(configuration: configuration,
                                                             initialDeviceRotation: initialDeviceRotation)))
    }

    deinit {
        stop()
    }

    // MARK: Reading the current state, synchronously

    public var angles: RotationAngles { state.withLock { $0.coordinator.angles } }
    public var captureAngle: RotationAngle { angles.capture }
    public var previewAngle: RotationAngle { angles.preview }
    public var sensorStatus: SensorStatus { state.withLock { $0.status } }
    public var counters: Counters { state.withLock { $0.counters } }
    public var configuration: RotationCoordinator.Configuration { state.withLock { $0.coordinator.configuration } }

    // MARK: Following the changes

    /// A new consumer's stream of the capture angle: each change from now on, the newest
    /// only (`bufferingNewest(1)`). Any number of consumers, each its own stream. It reports
    /// only changes: take it, then read `angles` once (a change in between then comes in
    /// the stream too, so none is lost). Ends when the observer stops.
    public func captureAngles() -> AsyncStream<RotationAngle> { captureFanout.stream() }

    /// A new consumer's stream of the preview angle, like `captureAngles()`.
    public func previewAngles() -> AsyncStream<RotationAngle> { previewFanout.stream() }

    // MARK: Running

    /// Starts reading the accelerometer. Idempotent.
    public func start() {
        let (inputs, input) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
        let go = state.withLock { s -> Bool in
            guard !s.started else { return false }
            s.started = true
            return true
        }
        guard go else { return }
        let events = accelerometer.events()
        let feeder = Task {
            for await event in events {
                input.yield(.event(event))
            }
            input.yield(.sourceEnded)
        }
        // One task handles every input in order; it holds the observer weakly so
        // dropping the observer ends it.
        let driver = Task { [weak self] in
            for await item in inputs {
                guard let self else { break }
                self.handle(item, input: input)
            }
        }
        state.withLock {
            $0.feeder = feeder
            $0.driver = driver
        }
    }

    /// Stops reading and finishes every stream. The angles keep their last values.
    public func stop() {
        let (tasks, waiters) = state.withLock { s in
            defer {
                s.feeder = nil
                s.driver = nil
                s.timer = nil
                s.endWaiters = []
                s.ended = true
            }
            return ([s.feeder, s.driver, s.timer], s.endWaiters)
        }
        for task in tasks { task?.cancel() }
        captureFanout.finish()
        previewFanout.finish()
        reportFanout.finish()
        for w in waiters { w.resume() }
    }

    /// Returns when the accelerometer's stream has ended (a replay's end) or the observer stopped.
    public func waitForSourceEnd() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.ended { return true }
                s.endWaiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// Everything the observer sees from now on, for diagnostics; ends when the observer stops.
    public func reports() -> AsyncStream<Report> {
        // Under the lock: a source that ends meanwhile either sees this consumer or ended before.
        let stream = state.withLock { s in s.ended ? nil : reportFanout.stream() }
        return stream ?? AsyncStream { $0.finish() }
    }

    /// Changes the display rotation (the preview angle follows).
    public func setDisplayRotation(_ rotation: RotationAngle) {
        state.withLock { s in
            let before = s.coordinator.angles
            if let change = s.coordinator.setDisplayRotation(rotation) { publish(change, previous: before) }
        }
    }

    /// Changes which way the camera faces (`POST /camera`'s facing); the capture angle follows.
    public func setFacing(_ facing: CameraFacing) {
        state.withLock { s in
            let before = s.coordinator.angles
            if let change = s.coordinator.setFacing(facing) { publish(change, previous: before) }
        }
    }

    // MARK: The driver task

    private func handle(_ item: Input, input: AsyncStream<Input>.Continuation) {
        var change: RotationAngles?
        var before: RotationAngles?
        var toReport: [Report] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        state.withLock { s in
            before = s.coordinator.angles
            switch item {
            case .event(let event):
                toReport.append(.event(event))
                switch event {
                case .sample(let sample):
                    s.counters.samples += 1
                    s.lastSampleTime = sample.time
                    // A pending rotation whose deadline passed before this sample is adopted first.
                    if let deadline = s.coordinator.pendingDeadline, deadline <= sample.time {
                        change = s.coordinator.advance(to: deadline)
                        if let c = change { toReport.append(.angles(c)) }
                    }
                    if let c = s.coordinator.update(with: sample) {
                        change = c
                        toReport.append(.angles(c))
                    }
                case .dropped(let why):
                    s.counters.dropped += 1
                    s.counters.droppedByReason[why.reason, default: 0] += 1
                case .available(let name):
                    s.status = .available(name)
                case .unavailable(let why):
                    s.status = .unavailable(why)
                }
            case .tick(let deadline):
                if s.coordinator.pendingDeadline == deadline, let c = s.coordinator.advance(to: deadline) {
                    change = c
                    toReport.append(.angles(c))
                }
            case .sourceEnded:
                // A pending rotation is adopted now: nothing more will arrive to confirm or cancel it.
                if let deadline = s.coordinator.pendingDeadline, let c = s.coordinator.advance(to: deadline) {
                    change = c
                    toReport.append(.angles(c))
                }
                if case .unavailable = s.status {} else { s.status = .ended }
                toReport.append(.ended)
                s.ended = true
                waiters = s.endWaiters
                s.endWaiters = []
            }
            if change != nil { s.counters.changes += 1 }
            if let change, let before { publish(change, previous: before) }
            for report in toReport { reportFanout.yield(report) }
            scheduleTimer(&s, input: input)
        }
        for w in waiters { w.resume() }
    }

    /// Arms a timer for a pending rotation's deadline, measured from the last sample.
    private func scheduleTimer(_ s: inout State, input: AsyncStream<Input>.Continuation) {
        let deadline = s.coordinator.pendingDeadline
        guard deadline != s.timerDeadline else { return }
        s.timer?.cancel()
        s.timer = nil
        s.timerDeadline = deadline
        guard let deadline else { return }
        let wait = max(deadline - s.lastSampleTime, .zero)
        s.timer = Task {
            try? await Task.sleep(for: wait)
            if !Task.isCancelled { input.yield(.tick(deadline)) }
        }
    }

    /// Called with `state` held: see the fan-outs.
    private func publish(_ angles: RotationAngles, previous: RotationAngles) {
        if previous.capture != angles.capture { captureFanout.yield(angles.capture) }
        if previous.preview != angles.preview { previewFanout.yield(angles.preview) }
    }
}
