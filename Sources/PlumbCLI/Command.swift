/// One `plumb` subcommand.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    /// Full `--help` text.
    static var help: String { get }
    static func run(_ arguments: inout Arguments) async throws -> ExitCode
}
