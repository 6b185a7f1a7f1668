import Dispatch
import Foundation
import Plumb

/// `plumb run FILE [-D k=v]... [--duration SECONDS]`
enum RunCommand: Command {
    static let name = "run"
    static let summary = "play a pipeline description file"
    static let help = """
        Usage: plumb run FILE [-D NAME=VALUE]... [--duration SECONDS]

        Plays FILE until end of stream, an error, --duration, or Ctrl-C / SIGTERM.
        A stop sends EOS and waits for it, so an MP4 being written is finalized;
        a second Ctrl-C aborts at once. State changes go to stdout, errors to stderr.

        Options:
          -D NAME=VALUE        set a variable (repeatable)
          --duration SECONDS   stop (with EOS) after this long

        Exit codes: 0 finished or stopped cleanly, 1 pipeline error, 2 bad usage or
        description (FILE:LINE:COL: error: ...), 130 aborted by a second signal.
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let defines = try parseDefines(arguments.options("-D", "--define"))
        var duration: Double?
        if let text = try arguments.option("--duration") { duration = try parseSeconds(text, option: "--duration") }
        let file = try arguments.positional("pipeline FILE")
        try arguments.finish()

        let runner: PipelineRunner
        do {
            let description = try PipelineDescription.load(file)
            runner = PipelineRunner(pipeline: try PipelineLoader.build(description.resolve(defines)))
        } catch {
            FileHandle.standardError.write("\(error)\n")
            return .usage
        }
        let signals = SignalWatch([SIGINT, SIGTERM]) { signal in
            runner.stop(reason: signal == SIGINT ? "SIGINT" : "SIGTERM")
        }
        defer { signals.cancel() }
        let outcome = await runner.run(duration: duration.map { .milliseconds(Int($0 * 1000)) }) { event in
            switch event {
            case let .state(old, new): say("state: \(old) -> \(new)")
            case .warning(let w): FileHandle.standardError.write("warning: \(w)\n")
            case .stopping(let reason): say("\(reason): sending EOS, waiting for the pipeline to finish")
            }
        }
        switch outcome {
        case .finished:
            say("finished")
            return .success
        case .failed(let error):
            FileHandle.standardError.write("error: \(error)\n")
            return .failure
        case .aborted:
            FileHandle.standardError.write("aborted: stopped again before EOS; files may be incomplete\n")
            return .aborted
        }
    }
}

/// Turns SIGINT/SIGTERM into calls on a Dispatch queue instead of killing the process.
/// `@unchecked Sendable`: Dispatch sources are thread-safe; the array never changes.
final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // Signals that arrive together are coalesced into one event: `data` counts them,
            // so a quick double Ctrl-C still counts as two. (The handler holds its source until
            // `cancel()`, when Dispatch lets go of the handler.)
            source.setEventHandler {
                for _ in 0..<max(1, Int(source.data)) { handler(number) }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
