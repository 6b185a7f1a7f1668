import FoundationEssentials
import Glibc
import PlumbBase

/// The repair of a recordings folder after a crash (`plumb repair FOLDER`, and `plumb serve`
/// before it records): every `.mp4` at the folder's top level is examined. One a crash left
/// fragmented or cut is rewritten into a normal MP4 with its whole frames (`MP4Repair`); one
/// that holds nothing playable is moved to `FOLDER/damaged/`, never deleted; a normal one is
/// not touched. Hidden files (a clip being sent) and other folders are not looked at.
public enum FolderRepair {
    public struct Options: Sendable {
        /// Say what would be done, change nothing.
        public var dryRun: Bool
        /// Look twice, this far apart, at the files to change that were modified in the last
        /// `recent`, and skip those that changed in between: another program (a `plumb record`)
        /// still writes them. nil when nothing else writes there (the daemon holds the folder).
        public var growthCheck: Duration?

        public init(dryRun: Bool = false, growthCheck: Duration? = nil) {
            self.dryRun = dryRun
            self.growthCheck = growthCheck
        }
    }

    /// Where files that hold nothing playable go, inside the folder.
    public static let damagedFolder = "damaged"
    /// How recent a change must be for the growth check to look again.
    static let recent: TimeInterval = 10

    /// Repairs `folder`; `each` gets every report as it is made. The reports, by file name.
    /// - Throws: when the folder cannot be read.
    @discardableResult
    public static func run(folder: String, options: Options = Options(), each: (RepairReport) -> Void = { _ in })
        throws(RepairError) -> [RepairReport]
    {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            throw RepairError("cannot read the folder \(folder): \(Path.whyUnreadable(folder, folder: true))")
        }
        if !options.dryRun {
            for name in names where name.hasPrefix(MP4Repair.temporaryPrefix) && name.hasSuffix(".tmp") {
                unlink(folder + "/" + name)  // a copy a crashed repair left; its original is untouched
            }
        }
        var planned: [(name: String, state: Result<MP4Repair.State, MediaError>)] = []
        for name in names where isRecording(name, in: folder) {
            planned.append((name, Result { () throws(MediaError) in try MP4Repair.examine(path: folder + "/" + name) }))
        }
        let growing = options.growthCheck.map { stillWritten(planned.filter { needsWork($0.state) }.map(\.name), in: folder, wait: $0) } ?? []
        var reports: [RepairReport] = []
        for (name, state) in planned {
            let report = growing.contains(name)
                ? RepairReport(file: name, action: .skipped, frames: 0,
                               detail: "still being written: it changed while plumb looked; repair it once it is finished")
                : act(on: name, in: folder, state, dryRun: options.dryRun)
            each(report)
            reports.append(report)
        }
        return reports
    }

    /// A regular file (not a link), not hidden, ending in .mp4.
    static func isRecording(_ name: String, in folder: String) -> Bool {
        guard !name.hasPrefix("."), name.lowercased().hasSuffix(".mp4") else { return false }
        var info = stat()
        return lstat(folder + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    private static func needsWork(_ state: Result<MP4Repair.State, MediaError>) -> Bool {
        if case .success(.normal) = state { return false }
        return true
    }

    private static func act(on name: String, in folder: String, _ state: Result<MP4Repair.State, MediaError>,
                            dryRun: Bool) -> RepairReport
    {
        let path = folder + "/" + name
        switch state {
        case .success(.normal(let frames)):
            return RepairReport(file: name, action: .leftAsIs, frames: frames, detail: "a normal MP4")
        case .success(.repairable(let frames, let why)):
            guard !dryRun else { return RepairReport(file: name, action: .repaired, frames: frames, detail: why) }
            do throws(RepairError) {
                return RepairReport(file: name, action: .repaired, frames: try MP4Repair.rewrite(path: path), detail: why)
            } catch {
                return RepairReport(file: name, action: .failed, frames: 0, detail: "\(error); left as it was")
            }
        case .success(.unplayable(let why)):
            do throws(RepairError) {
                let target = try moveToDamaged(name, in: folder, dryRun: dryRun)
                return RepairReport(file: name, action: .moved, frames: 0, detail: why, movedTo: target)
            } catch {
                return RepairReport(file: name, action: .failed, frames: 0, detail: "\(why), but \(error); left where it was")
            }
        case .failure(let error):
            return RepairReport(file: name, action: .failed, frames: 0, detail: "\(error); left as it was")
        }
    }

    /// Moves `name` into `damaged/` (made if missing) under its own name, or `NAME-2.mp4` ...
    /// when that is taken; returns where it went, from the folder.
    static func moveToDamaged(_ name: String, in folder: String, dryRun: Bool) throws(RepairError) -> String {
        let damaged = folder + "/" + damagedFolder
        var info = stat()
        if lstat(damaged, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw RepairError("\(damaged) is in the way: it is not a folder (move it away to let plumb keep damaged files there)")
            }
        } else if !dryRun {
            guard mkdir(damaged, 0o755) == 0 || errno == EEXIST else { throw .system("create the folder", damaged) }
        }
        let stem = Path.deletingExtension(name), ext = Path.extension(name)
        var target = name
        var n = 2
        while lstat(damaged + "/" + target, &info) == 0 {
            target = "\(stem)-\(n).\(ext)"
            n += 1
        }
        if !dryRun {
            guard rename(folder + "/" + name, damaged + "/" + target) == 0 else {
                throw .system("move \(folder)/\(name) to", damaged + "/" + target)
            }
            PosixFile.syncFolder(damaged)
            PosixFile.syncFolder(folder)
        }
        return damagedFolder + "/" + target
    }

    /// The files among `names` modified in the last `recent` seconds whose size or time
    /// changes within `wait`.
    private static func stillWritten(_ names: [String], in folder: String, wait: Duration) -> Set<String> {
        func look(_ name: String) -> (Int, Int, Int)? {
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0 else { return nil }
            return (Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec)
        }
        let now = Date().timeIntervalSince1970
        let first = names.compactMap { name -> (String, (Int, Int, Int))? in
            guard let seen = look(name), now - TimeInterval(seen.1) < recent else { return nil }
            return (name, seen)
        }
        guard !first.isEmpty else { return [] }
        let (seconds, attoseconds) = wait.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        return Set(first.filter { name, seen in look(name).map { $0 != seen } ?? true }.map(\.0))
    }
}
