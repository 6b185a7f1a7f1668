import Foundation
import Synchronization

/// Drives a `RotationCoordinator` from an accelerometer and publishes the angles.
///
/// As in AVCam: read `angles` (or `captureAngle`) once *before* consuming
/// `captureAngles`, which reports only later changes and keeps only the newest
/// (`bufferingNewest(1)`): a consumer that falls behind a storm of rotations
/// still ends on the latest angle. Events are handled one at a time, in order,
/// on one task. A debounce is completed by a timer when no further sample
/// arrives. A sensor that disappears is reported in `sensorStatus` and the last
/// angles hold.
public final class RotationObserver: Sendable {
    /// The capture angle after each change. One consumer; only the newest angle is kept.
    public let captureAngles: AsyncStream<RotationAngle>
    /// The preview angle after each change. One consumer; only the newest angle is kept.
    public let previewAngles: AsyncStream<RotationAngle>

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
        var reports: [UUID: AsyncStream<Report>.Continuation] = [:]
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
    private let captureContinuation: AsyncStream<RotationAngle>.Continuation
    private let previewContinuation: AsyncStream<RotationAngle>.Continuation

    public init(accelerometer: any Accelerometer,
                configuration: RotationCoordinator.Configuration = .init(),
                initialDeviceRotation: RotationAngle = .degrees0) {
        self.accelerometer = accelerometer
        state = Mutex(State(coordinator: RotationCoordinator(configuration: configuration,
                                                             initialDeviceRotation: initialDeviceRotation)))
        (captureAngles, captureContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (previewAngles, previewContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
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
        let (tasks, waiters, reports) = state.withLock { s in
            defer {
                s.feeder = nil
                s.driver = nil
                s.timer = nil
                s.endWaiters = []
                s.reports = [:]
                s.ended = true
            }
            return ([s.feeder, s.driver, s.timer], s.endWaiters, Array(s.reports.values))
        }
        for task in tasks { task?.cancel() }
        captureContinuation.finish()
        previewContinuation.finish()
        for r in reports { r.finish() }
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
        let (stream, continuation) = AsyncStream<Report>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        let alreadyEnded = state.withLock { s -> Bool in
            if s.ended { return true }
            s.reports[id] = continuation
            return false
        }
        if alreadyEnded {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.reports.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Changes the display rotation (the preview angle follows).
    public func setDisplayRotation(_ rotation: RotationAngle) {
        let (before, change) = state.withLock { s in
            (s.coordinator.angles, s.coordinator.setDisplayRotation(rotation))
        }
        if let change { publish(change, previous: before) }
    }

    // MARK: The driver task

    private func handle(_ item: Input, input: AsyncStream<Input>.Continuation) {
        var change: RotationAngles?
        var before: RotationAngles?
        var toReport: [Report] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var reports: [AsyncStream<Report>.Continuation] = []
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
            reports = Array(s.reports.values)
            scheduleTimer(&s, input: input)
        }
        if let change, let before { publish(change, previous: before) }
        for r in reports {
            for report in toReport { r.yield(report) }
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

    private func publish(_ angles: RotationAngles, previous: RotationAngles) {
        if previous.capture != angles.capture { captureContinuation.yield(angles.capture) }
        if previous.preview != angles.preview { previewContinuation.yield(angles.preview) }
    }
}
