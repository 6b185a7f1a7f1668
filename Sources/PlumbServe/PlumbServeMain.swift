import FoundationEssentials
import Glibc
import PlumbBase
import PlumbCommandLine

/// `plumb-serve`: the daemon's executable, which `plumb serve` execs with its own arguments
/// (`plumb-serve serve [OPTIONS]`). Run by hand, it takes the same command line.
@main
enum PlumbServeMain {
    static func main() {
        var args = Array(CommandLine.arguments.dropFirst())
        SignalInbox.release(allBut: args.first == ServeCommand.name ? ServeCommand.watchedSignals : [])
        guard args.first == ServeCommand.name else {
            StandardStream.error.write("Usage: plumb serve [OPTIONS] (this is the daemon `plumb serve` starts; "
                                           + "see plumb serve --help)\n")
            exit(ExitCode.usage.rawValue)
        }
        args.removeFirst()
        CommandRunner.start(ServeCommand.self, args)
    }
}
