import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbDescription

/// `plumb check FILE [-D k=v]...`
enum CheckCommand: Command {
    static let name = "check"
    static let summary = "check a pipeline description file without playing it"
    static let help = """
        Usage: plumb check FILE [-D NAME=VALUE]... [--strict]

        Parses FILE, substitutes its variables, checks every element, property and
        caps, that names are unique and that every element is linked (a missing "!"),
        links the pipeline and brings it to READY (devices are opened, nothing plays).
        Sinks that write files are not started: their folders are checked instead, so
        a check creates, truncates or writes no file.
        Prints a summary and exits 0, or prints FILE:LINE:COL: error: ... and exits 2.
        What GStreamer's libraries print on stderr meanwhile is passed on as warnings.
        A capture device that is missing, busy or forbidden on this machine is only a
        warning (the description is sound) unless --strict is given.

        Options:
          --strict        a missing or busy capture device is an error too
          -D NAME=VALUE   set a variable declared with `# var: NAME=DEFAULT` (repeatable)
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let defines = try parseDefines(arguments.options("-D", "--define"))
        let strict = arguments.flag("--strict")
        let file = try arguments.positional("pipeline FILE")
        try arguments.finish()
        do {
            let description = try PipelineDescription.load(file)
            let resolved = try description.resolve(defines)
            // Before the capture: a registry scan runs a helper process, which would inherit it.
            _ = try? CaptureEngine.initialize()
            // Elements open devices and displays at READY, and the libraries under them print
            // what they think of it; that is a warning here, never an "error:" of the check.
            let (outcome, printed) = StandardErrorCapture.capture {
                Result { () throws(Diagnostic) in try PipelineLoader.check(resolved, strict: strict) }
            }
            // After the check's own verdict: its error, if any, stays the first line.
            func passOn() {
                for line in printed {
                    StandardStream.error.write("\(file): warning: a library printed during the check: \"\(line)\"\n")
                }
            }
            let report: PipelineLoader.Report
            switch outcome {
            case .success(let r): report = r
            case .failure(let error):
                StandardStream.error.write("\(error)\n")
                passOn()
                return .usage
            }
            for warning in report.warnings {
                StandardStream.error.write("\(warning.location): warning: \(warning.message)\n")
            }
            passOn()
            let roles = report.roles.keys.sorted { $0.rawValue < $1.rawValue }
                .map { "\($0.rawValue)=\(report.roles[$0]!.joined(separator: ","))" }
            say("\(file): ok: \(description.name), \(report.elementCount) elements"
                  + (roles.isEmpty ? "" : ", roles: " + roles.joined(separator: " ")))
            return .success
        } catch {
            StandardStream.error.write("\(error)\n")
            return .usage
        }
    }
}
