import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase

/// Runs one command on the arguments after its name, the same way in `plumb` and in
/// `plumb-serve`: `--help` prints its help; a usage error prints the help to stderr and
/// exits 2, any other error exits 1.
package enum CommandRunner {
    /// Runs the command on Swift's cooperative threads and parks the calling (main) thread
    /// until the command exits the process. What a synchronous `main` calls instead of being
    /// `async`: an async `main` parks the main thread in `dispatch_main`, whose `pthread_exit`
    /// unwinds that thread's stack through the program's unwind tables, about 0.6 MiB of them
    /// made resident for nothing (issue 26, bench/README.md).
    package static func start(_ command: any Command.Type, _ args: [String]) -> Never {
        Task.detached { await run(command, args) }
        // A caught signal wakes pause(); the command's SignalWatch handles it.
        while true { pause() }
    }

    package static func run(_ command: any Command.Type, _ args: [String]) async -> Never {
        var arguments = Arguments(args)
        if arguments.flag("--help", "-h") {
            say(command.help)
            exit(0)
        }
        do {
            let code = try await command.run(&arguments)
            exit(code.rawValue)
        } catch let error as UsageError {
            StandardStream.error.write("plumb \(command.name): \(error)\n\n\(command.help)\n")
            exit(ExitCode.usage.rawValue)
        } catch {
            StandardStream.error.write("plumb \(command.name): error: \(error)\n")
            exit(ExitCode.failure.rawValue)
        }
    }
}

/// Writes a line to stdout at once (no stdio buffering), so progress shows when piped.
package func say(_ line: String) {
    StandardStream.output.write(line + "\n")
}
