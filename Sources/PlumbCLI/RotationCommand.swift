import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbRotation

/// `plumb rotation --accelerometer SPEC ...`: a live diagnostic for installers.
enum RotationCommand: Command {
    static let name = "rotation"
    static let summary = "print accelerometer samples and the angles Plumb derives, live"
    static var watchedSignals: [Int32] { [SIGINT, SIGTERM] }
    static let help = """
        Usage: plumb rotation --accelerometer SPEC [--mount ANGLE] [--facing back|front]
                              [--hysteresis DEG] [--debounce MS] [--replay-speed X] [--duration SECONDS]

        Reads the accelerometer and prints each sample, each dropped (malformed)
        sample and each change of the capture and preview angles, with the time
        since start. Ends when the source ends (a replay, a fixed angle), after
        --duration, or on Ctrl-C, with a summary of what was read.

        Options:
        \(RotationOptions.help)
          --replay-speed X       play a replay X times faster (default 1)
          --duration SECONDS     stop after this long

        Angles are the clockwise rotation that turns the image upright (see README).
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let options = try RotationOptions(&arguments)
        var duration: Double?
        if let text = try arguments.option("--duration") { duration = try parseSeconds(text, option: "--duration") }
        try arguments.finish()
        guard options.spec != nil else { throw UsageError("--accelerometer is required") }
        let observer: RotationObserver
        do {
            observer = try options.makeObserver()!
        } catch {
            StandardStream.error.write("plumb rotation: \(error)\n")
            return .usage
        }
        let configuration = observer.configuration
        say("accelerometer \(options.spec!), mount \(configuration.mount.degrees), facing \(configuration.facing), "
            + "hysteresis \(configuration.hysteresis)°")
        say("start: capture \(observer.captureAngle.degrees), preview \(observer.previewAngle.degrees)")
        let start = ContinuousClock.now
        let reports = observer.reports()
        observer.start()
        let signals = SignalWatch(watchedSignals) { _ in observer.stop() }
        defer { signals.cancel() }
        let timer = Task {
            guard let duration else { return }
            try? await Task.sleep(for: .milliseconds(Int(duration * 1000)))
            if !Task.isCancelled { observer.stop() }
        }
        defer { timer.cancel() }
        for await report in reports {
            let t = start.duration(to: .now)
            let seconds = Double(t.components.seconds) + Double(t.components.attoseconds) / 1e18
            say(String(cFormat: "%8.3f  ", seconds) + report.description)
            if case .ended = report { break }
        }
        observer.stop()
        let c = observer.counters
        let reasons = c.droppedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        say("samples \(c.samples), dropped \(c.dropped)\(reasons.isEmpty ? "" : " (\(reasons))"), angle changes \(c.changes); "
            + "final: capture \(observer.captureAngle.degrees), preview \(observer.previewAngle.degrees); sensor \(observer.sensorStatus)")
        return .success
    }
}
