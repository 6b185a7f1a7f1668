import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbMedia

/// `plumb repair FOLDER [--dry-run] [--json]`: the recordings a crash left, made playable.
enum RepairCommand: Command {
    static let name = "repair"
    static let summary = "turn the recordings a crash left into normal MP4s"
    static let help = """
        Usage: plumb repair FOLDER [--dry-run] [--json]

        Examines every .mp4 at the top of FOLDER (plumb serve does this to its recordings
        folder each time it starts) and prints one line per file:
          - a recording a crash left (kill -9, a power cut: fragments never finalized, the
            last one cut) is rewritten into a normal, seekable MP4 holding every whole
            frame, with its orientation: "kept N frames";
          - a file that holds nothing playable (cut in its first second, before its
            movie header was written; empty; not an MP4) is moved to FOLDER/damaged/,
            never deleted;
          - a normal MP4 is left as is.
        A rewrite goes to a hidden file in FOLDER that replaces the original only once
        it is written, synced and read back. A file another program is still writing
        (it changes within a second) is skipped. A folder a running plumb serve records
        into is refused: the daemon repairs it itself when it starts.

        Options:
          --dry-run   say what would be done; change nothing
          --json      one JSON object per file: file, action (repaired, moved,
                      left-as-is, skipped, failed), frames, detail, moved_to, dry_run

        Exit codes: 0 every file is playable or was left as is; 1 a file could not be
        repaired or moved, or the folder is in use; 2 bad usage (no such folder).
        """

    /// A report as `--json` prints it.
    struct Line: Encodable {
        var report: RepairReport
        var dryRun: Bool

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(dryRun, forKey: .dryRun)
        }

        enum CodingKeys: String, CodingKey { case dryRun = "dry_run" }
    }

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let dryRun = arguments.flag("--dry-run")
        let json = arguments.flag("--json")
        let folder = try arguments.positional("FOLDER")
        try arguments.finish()
        var isFolder: Bool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw UsageError("\(folder): no such folder")
        }
        guard isFolder else { throw UsageError("\(folder) is not a folder: give the recordings folder") }

        let lock: FolderLock?
        do throws(RepairError) {
            lock = try FolderLock.acquire(folder)
        } catch {
            StandardStream.error.write("plumb repair: \(error)" + (error.isInUse ? ": stop it first (it repairs its "
                                           + "folder itself each time it starts), or wait for the other repair" : "") + "\n")
            return .failure
        }
        defer { withExtendedLifetime(lock) {} }
        if !dryRun {
            // An event clip a crash cut is hidden under a temporary name: give it its own first.
            for name in EventRecorder.recoverLeftovers(in: folder) where !json {
                say("\(name): an event clip cut by a crash, given back its name for the repair")
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reports = try FolderRepair.run(folder: folder, options: .init(dryRun: dryRun, growthCheck: .seconds(1))) { report in
            if json, let data = try? encoder.encode(Line(report: report, dryRun: dryRun)) {
                say(String(decoding: data, as: UTF8.self))
            } else {
                say(report.sentence(dryRun: dryRun))
            }
        }
        if reports.isEmpty && !json { say("\(folder): no .mp4 files") }
        return reports.contains { $0.action == .failed } ? .failure : .success
    }
}
