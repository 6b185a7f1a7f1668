import CPlumbCLIShim
import FoundationEssentials
import Glibc
import PlumbBase
import PlumbCommandLine

/// `plumb serve ...` becomes `plumb-serve serve ...`, the executable beside this one (found
/// through /proc/self/exe, so a symlink to `plumb` or a relative path finds the right one):
/// same process, same arguments, the stop signals held across the exec.
enum ServeLauncher {
    static func exec() -> Never {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(DaemonCommand.executable).path
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
        argv[0] = strdup(path)
        let failure = plumb_exec_holding_signals(path, &argv)
        StandardStream.error.write("plumb serve: error: cannot start \(path): \(String(cString: strerror(failure)))"
                                       + " (`make install` puts \(DaemonCommand.executable) beside plumb)\n")
        exit(ExitCode.failure.rawValue)
    }
}
