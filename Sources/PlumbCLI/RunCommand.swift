import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbDescription

/// `plumb run FILE [-D k=v]... [--duration SECONDS]`
enum RunCommand: Command {
    static let name = "run"
    static let summary = "play a pipeline description file"
    static var watchedSignals: [Int32] { [SIGINT, SIGTERM] }
    static let help = """
        Usage: plumb run FILE [-D NAME=VALUE]... [--duration SECONDS] [--accelerometer SPEC] [--mount ANGLE]
                         [--facing back|front] [--hysteresis DEG] [--debounce MS]

        Plays FILE until end of stream, an error, --duration, or Ctrl-C / SIGTERM.
        A stop sends EOS and waits for it, so an MP4 being written is finalized;
        a second Ctrl-C aborts at once. State changes go to stdout, errors to stderr.

        Options:
          -D NAME=VALUE        set a variable (repeatable)
          --duration SECONDS   stop (with EOS) after this long

        Rotation (elements found by their role names, see README):
        \(RotationOptions.help)
          A `preview_flip` videoflip turns live with the preview angle; a `rec_mux` mp4mux
          gets the track matrix of the capture angle when its first frame arrives.

        Exit codes: 0 finished or stopped cleanly, 1 pipeline error, 2 bad usage or
        description (FILE:LINE:COL: error: ...), 130 aborted by a second signal.
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let defines = try parseDefines(arguments.options("-D", "--define"))
        var duration: Double?
        if let text = try arguments.option("--duration") { duration = try parseSeconds(text, option: "--duration") }
        let rotation = try RotationOptions(&arguments)
        let file = try arguments.positional("pipeline FILE")
        try arguments.finish()

        let runner: PipelineRunner
        do {
            let description = try PipelineDescription.load(file)
            runner = PipelineRunner(pipeline: try PipelineLoader.build(description.resolve(defines)))
        } catch {
            StandardStream.error.write("\(error)\n")
            return .usage
        }
        var rotator: RoleRotator?
        do {
            if let observer = try rotation.makeObserver(fallback: { StandardStream.error.write("plumb run: warning: \($0)\n") }) {
                let r = try RoleRotator(pipeline: runner.pipeline, observer: observer)
                if r.isEmpty {
                    StandardStream.error.write("warning: \(file) has no preview_flip or rec_mux element: "
                        + "the rotation has nothing to turn\n")
                } else {
                    say("rotation: \(rotation.spec.map { "\($0)" } ?? "fixed:0"), mount \(rotation.configuration.mount.degrees); "
                        + "turning \((r.flips + r.muxers).joined(separator: ", "))")
                }
                r.start()
                rotator = r
            }
        } catch {
            StandardStream.error.write("plumb run: \(error)\n")
            return .usage
        }
        defer { rotator?.stop() }
        let signals = SignalWatch(watchedSignals) { signal in
            runner.stop(reason: signal == SIGINT ? "SIGINT" : "SIGTERM")
        }
        defer { signals.cancel() }
        let outcome = await runner.run(duration: duration.map { .milliseconds(Int($0 * 1000)) },
                                       durationReason: "--duration reached") { event in
            switch event {
            case let .state(old, new): say("state: \(old) -> \(new)")
            case .warning(let w): StandardStream.error.write("warning: \(w)\n")
            case .stopping(let reason): say("\(reason): sending EOS, waiting for the pipeline to finish")
            }
        }
        switch outcome {
        case .finished:
            say("finished")
            return .success
        case .failed(let error):
            StandardStream.error.write("error: \(error)\n")
            return .failure
        case .aborted:
            StandardStream.error.write("aborted: stopped again before EOS; files may be incomplete\n")
            return .aborted
        }
    }
}
