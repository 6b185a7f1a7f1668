/// `plumb` and `plumb-serve` exit codes (documented in README.md).
package enum ExitCode: Int32 {
    /// Done: EOS reached, or a stop finalized every file.
    case success = 0
    /// The pipeline failed while running (a bus error, EOS not arriving when stopping).
    case failure = 1
    /// A bad command line or a bad pipeline description: nothing was started.
    case usage = 2
    /// Stopped twice: torn down without waiting for files to finalize.
    case aborted = 130
}
