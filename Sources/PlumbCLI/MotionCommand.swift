import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbRotation

/// `plumb motion [--camera ...] [--rate N] [--sensitivity S] [--min-area F] [--min-frames N]
/// [--quiet-seconds S] [--mask X,Y,W,H]... [--once] [--seconds N]`
///
/// Watches the camera for motion and prints one JSON line each time it starts and ends.
enum MotionCommand: Command {
    static let name = "motion"
    static let summary = "watch the camera for motion, one JSON line per start and end"
    static var watchedSignals: [Int32] { Interrupt.signals }
    static let help = """
        Usage: plumb motion [--camera NAME|PATH|test|image:FILE] [--size WxH] [--zoom F] [--control NAME=VALUE]...
                            [--rate N] [--sensitivity S] [--min-area F] [--min-frames N] [--quiet-seconds S]
                            [--mask X,Y,W,H]... [--once] [--seconds N]
                            [--accelerometer SPEC] [--mount ANGLE] [--facing back|front]
                            [--hysteresis DEG] [--debounce MS]

        Opens the camera and compares small grey frames (160 pixels wide) with a slowly
        adapting background until Ctrl-C, --seconds or (with --once) the first start of
        motion. Each start and end is one line of JSON on stdout: motion ("started" or
        "ended"), fraction (the changed part of the picture), boxes [{x, y, width, height}]
        of the changed regions in normalised coordinates of the upright picture (the capture
        angle applied), time. A change over half the picture at once, or of the whole
        picture's brightness by 15 % or more (a light switched on, the exposure jumping), is
        a lighting change, said on stderr, not motion; the background re-learns.

        Options:
        \(CaptureOptions.help)
          --rate N         frames analysed per second, 1 to 30 (default 5)
          --sensitivity S  0 to 1 (default 0.5): higher finds fainter changes (a pixel counts as
                           changed beyond 60 grey levels at 0, 10 at 1)
          --min-area F     the changed part of the picture that makes a motion frame, above 0
                           to 0.49 (default 0.005; half the picture at once is a lighting change)
          --min-frames N   motion frames in a row before motion starts, 1 to 100 (default 2)
          --quiet-seconds S
                           seconds without motion before it ends, 0 to 3600 (default 2)
          --mask X,Y,W,H   a part of the upright picture ignored, normalised 0 to 1 (repeatable)
          --once           stop at the first start of motion
          --seconds N      stop after N seconds (0.1 to 86400)
        \(RotationOptions.help)

        Exit codes: 0 done, 1 the camera failed (or --once saw no motion within --seconds),
        2 a bad argument, 130 aborted by a second signal.
        """

    /// A number in `range`, for `option`.
    private static func number(_ text: String, option: String, range: ClosedRange<Double>, what: String,
                               openBelow: Bool = false) throws(UsageError) -> Double {
        guard let v = Double(text), v.isFinite, range.contains(v), !(openBelow && v == range.lowerBound) else {
            let from = openBelow ? "above \(range.lowerBound.clean)" : "from \(range.lowerBound.clean)"
            throw UsageError("--\(option) \(text): expected \(what) \(from) to \(range.upperBound.clean)")
        }
        return v
    }

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let capture = try CaptureOptions.parse(&arguments)
        var options = MotionOptions()
        if let text = try arguments.option("--rate") {
            options.rate = try CaptureOptions.parseInt(text, option: "--rate", range: 1...30, what: "frames per second")
        }
        if let text = try arguments.option("--sensitivity") {
            options.sensitivity = try number(text, option: "sensitivity", range: 0...1, what: "a sensitivity")
        }
        if let text = try arguments.option("--min-area") {
            options.minArea = try number(text, option: "min-area", range: 0...0.49, what: "a part of the picture", openBelow: true)
        }
        if let text = try arguments.option("--min-frames") {
            options.minFrames = try CaptureOptions.parseInt(text, option: "--min-frames", range: 1...100, what: "a number of frames")
        }
        if let text = try arguments.option("--quiet-seconds") {
            options.quietSeconds = try number(text, option: "quiet-seconds", range: 0...3600, what: "a number of seconds")
        }
        do {
            options.masks = try arguments.options("--mask").map { text throws(UsageError) -> NormalizedRect in
                do { return try NormalizedRect.parse(text) } catch { throw UsageError("--mask: \(error)") }
            }
        }
        let once = arguments.flag("--once")
        let seconds = try arguments.option("--seconds").map { text throws(UsageError) -> Double in
            try number(text, option: "seconds", range: 0.1...86_400, what: "a number of seconds")
        }
        let rotation = try RotationOptions(&arguments)
        try arguments.finish()

        let source: CameraSource
        let observer: RotationObserver?
        let output: MotionOutput
        do {
            source = try capture.source()
            observer = try rotation.makeObserver { StandardStream.error.write("plumb motion: warning: \($0)\n") }
            output = try MotionOutput(options: options) {
                StandardStream.error.write("plumb motion: lighting change (not motion); the background re-learns\n")
            }
        } catch let error as AccelerometerError {
            throw UsageError("--accelerometer: \(error)")
        } catch let error as CaptureError {
            throw UsageError("\(error)")
        } catch {
            return report(error, command: name)
        }
        let interrupt = Interrupt(abortMessage: "plumb motion: aborted by a second signal")
        let session: CaptureSession
        do {
            session = try await capture.openSession(source, following: observer, attaching: output)
        } catch {
            return report(error, command: name)
        }
        StandardStream.error.write("plumb motion: watching \(source.identifier) at \(options.rate) fps"
            + (options.masks.isEmpty ? "" : ", masks \(options.masks.map(\.description).joined(separator: " "))")
            + "; Ctrl-C stops\n")
        // A signal or the time stops by detaching the output, which ends `events`.
        let stop = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await interrupt.requested() }
                if let seconds { group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } }
                await group.next()
                group.cancelAll()
            }
            try? await session.detach(output)
        }
        var starts = 0
        for await event in output.events {
            StandardStream.output.write(event.jsonLine + "\n")
            if event.change == .started { starts += 1 }
            if once && starts > 0 { break }
        }
        stop.cancel()
        try? await session.detach(output)
        await stop.value
        await session.close()
        if interrupt.isRequested {
            StandardStream.error.write("plumb motion: \(interrupt.signalName): stopped after \(starts) start(s) of motion\n")
        }
        if starts == 0 && !interrupt.isRequested {
            // Said with the frames really analysed: "no motion" from a camera that gave none is no answer.
            StandardStream.error.write("plumb motion: no motion within \(seconds.map { "\($0.clean) s" } ?? "the time") "
                + "(\(output.framesAnalysed) frames of \(source.identifier) analysed)\n")
            if once { return .failure }
        }
        return .success
    }
}
