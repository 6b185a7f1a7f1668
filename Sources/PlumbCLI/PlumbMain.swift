import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine

@main
enum PlumbMain {
    static let version = "0.1.0"

    static var commands: [any Command.Type] { [
        CheckCommand.self, RunCommand.self, DevicesCommand.self, ControlsCommand.self, EncodersCommand.self, PhotoCommand.self, RecordCommand.self, ScanCommand.self, MotionCommand.self,
        RotationCommand.self, InspectCommand.self, RepairCommand.self,
    ] }

    static var help: String {
        let names = commands.map { ($0.name, $0.summary) } + [(DaemonCommand.name, DaemonCommand.summary)]
        let list = names.map { "  \($0.0 + String(repeating: " ", count: max(0, 10 - $0.0.count)))\($0.1)" }
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

    static func main() {
        var args = Array(CommandLine.arguments.dropFirst())
        if args.first == DaemonCommand.name { ServeLauncher.exec() }
        // The stop signals are caught from the first instruction (SignalInbox); from here on
        // only those the command watches are.
        SignalInbox.release(allBut: commands.first { $0.name == args.first }?.watchedSignals ?? [])
        // No command is a usage error: the help goes to stderr with exit 2, like every
        // other usage error (`plumb --help` asks for it: stdout, exit 0).
        guard let first = args.first else {
            StandardStream.error.write(help + "\n")
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
            StandardStream.error.write("plumb: unknown command \"\(first)\"\n\n\(help)\n")
            exit(ExitCode.usage.rawValue)
        }
        args.removeFirst()
        CommandRunner.start(command, args)
    }
}
