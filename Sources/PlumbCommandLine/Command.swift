/// One `plumb` subcommand (`serve` is `plumb-serve`'s).
package protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    /// Full `--help` text.
    static var help: String { get }
    /// The signals the command watches with a `SignalWatch` (one that comes before it does
    /// waits in `SignalInbox`); the others get their default action back when it starts.
    static var watchedSignals: [Int32] { get }
    static func run(_ arguments: inout Arguments) async throws -> ExitCode
}

extension Command {
    package static var watchedSignals: [Int32] { [] }
}
