import Foundation
import Plumb

@main
enum PlumbMain {
    static let version = "0.1.0"

    static var commands: [any Command.Type] { [
        CheckCommand.self, RunCommand.self, DevicesCommand.self, ControlsCommand.self, EncodersCommand.self, PhotoCommand.self, RecordCommand.self, ScanCommand.self, MotionCommand.self,
        RotationCommand.self, InspectCommand.self, RepairCommand.self, ServeCommand.self,
    ] }

    static var help: String {
        let list = commands.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }
        return """
            plumb — a camera capture engine on GStreamer

            Usage: plumb COMMAND [OPTIONS]

            Commands:
            \(list.joined(separator: "\n"))

            Options:
              --version   print the version
              --help      this text; `plumb COMMAND --help` for a command

            Exit codes: 0 done, 1 runtime failure, 2 bad usage or pipeline description (nothing
            was started), 130 aborted by a second signal (or interrupted before anything was captured).
            """
    }

    static func main() async {
        var args = Array(CommandLine.arguments.dropFirst())
        // The stop signals are caught from the first instruction (SignalInbox); from here on
        // only those the command watches are.
        SignalInbox.release(allBut: commands.first { $0.name == args.first }?.watchedSignals ?? [])
        // No command is a usage error: the help goes to stderr with exit 2, like every
        // other usage error (`plumb --help` asks for it: stdout, exit 0).
        guard let first = args.first else {
            FileHandle.standardError.write(help + "\n")
            exit(ExitCode.usage.rawValue)
        }
        if first == "--help" || first == "-h" || first == "help" {
            say(help)
            exit(0)
        }
        if first == "--version" {
            say("plumb \(version) (\(CaptureEngine.gstreamerVersion))")
            exit(0)
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            FileHandle.standardError.write("plumb: unknown command \"\(first)\"\n\n\(help)\n")
            exit(ExitCode.usage.rawValue)
        }
        args.removeFirst()
        var arguments = Arguments(args)
        if arguments.flag("--help", "-h") {
            say(command.help)
            exit(0)
        }
        do {
            let code = try await command.run(&arguments)
            exit(code.rawValue)
        } catch let error as UsageError {
            FileHandle.standardError.write("plumb \(command.name): \(error)\n\n\(command.help)\n")
            exit(ExitCode.usage.rawValue)
        } catch {
            FileHandle.standardError.write("plumb \(command.name): error: \(error)\n")
            exit(ExitCode.failure.rawValue)
        }
    }
}

extension FileHandle {
    func write(_ text: String) { write(Data(text.utf8)) }
}

/// Writes a line to stdout at once (no stdio buffering), so progress shows when piped.
func say(_ line: String) {
    FileHandle.standardOutput.write(line + "\n")
}
