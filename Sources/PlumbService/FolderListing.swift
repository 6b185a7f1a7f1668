import FoundationEssentials
import Glibc
import Plumb

/// The regular files directly in the recordings folder, as retention sees them, kept from
/// pass to pass. A folder holding months of segments, read and `lstat`ed whole every 3 s,
/// cost a pass 160 ms on this PC at 50 000 files (`plumb-bench retention`), several times
/// that on a board. So a refresh
/// - reads the files in use now or at the last refresh again (they grow, or just stopped);
/// - reads the directory's names only when the directory changed (its times, as `stat`
///   says them, differ from the last read), and then `lstat`s only the names it has not seen;
/// - reads everything once a minute (`rereadInterval`): a file rewritten in place keeps its name,
///   and a file system may not say a change at once (NFS caches a directory's attributes).
///
/// Never through a symlink, never into a subfolder (`lstat`: only regular files count).
struct FolderListing {
    static let rereadInterval: Duration = .seconds(60)
    /// How long after a directory's last change its times are trusted to show the next one:
    /// FAT keeps them to 2 s, so a change in the same 2 s would leave them as they were.
    static let settleSeconds: TimeInterval = 3

    let path: String
    /// Once per this everything is read again (`rereadInterval`; shorter in tests).
    let reread: Duration
    /// Oldest first by (modified, name), as the policy wants them: kept in that order, a
    /// refresh that changed little sorts almost sorted files, which Swift's sort does in
    /// about one comparison per file.
    private var files: [RetentionPolicy.File] = []
    /// The names of `files`, for membership at a hash each.
    private var names: Set<String> = []
    private var lastBusy: Set<String> = []
    /// The directory as it was when its names were last read, and the wall clock then.
    private var directory: (stamp: Stamp, readAt: TimeInterval)?
    private var lastFullRead: ContinuousClock.Instant?
    /// How many times the directory's names were read (what a settled folder is spared).
    private(set) var directoryReads = 0

    /// What says a directory changed: its identity and its times, to the nanosecond.
    struct Stamp: Equatable {
        var device: UInt64, inode: UInt64
        var modified: timespec, changed: timespec

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        var lastChange: TimeInterval { max(modified.seconds, changed.seconds) }
    }

    init(path: String, rereadEvery reread: Duration = Self.rereadInterval) {
        self.path = path
        self.reread = reread
    }

    /// The folder now, oldest first; `busy`: the files being written.
    mutating func refresh(busy: Set<String>) -> [RetentionPolicy.File] {
        let now = ContinuousClock.now
        let full = lastFullRead.map { now - $0 >= reread } ?? true
        let stamp = directoryStamp()
        let again = busy.union(lastBusy)
        lastBusy = busy
        if !full, let directory, let stamp, stamp == directory.stamp,
           directory.readAt - stamp.lastChange >= Self.settleSeconds {
            // The same names as last time: only the files in use may have changed.
            for name in again {
                let fresh = file(named: name)
                if let index = files.lastIndex(where: { $0.name == name }) {  // in use: among the newest, at the end
                    if let fresh { files[index] = fresh } else { files.remove(at: index); names.remove(name) }
                } else if let fresh {
                    files.append(fresh)
                    names.insert(name)
                }
            }
            if !again.isEmpty { files.sort(by: Self.older) }
            return files
        }

        if full { lastFullRead = now }
        let readAt = Date().timeIntervalSince1970
        let present = directoryNames()
        directoryReads += 1
        directory = stamp.map { ($0, readAt) }
        var next: [RetentionPolicy.File] = []
        next.reserveCapacity(present.count)
        for known in files where present.contains(known.name) {
            if full || again.contains(known.name) {
                if let fresh = file(named: known.name) { next.append(fresh) }
            } else {
                next.append(known)
            }
        }
        var gone: [String] = []
        for name in present where !names.contains(name) {
            if let fresh = file(named: name) { next.append(fresh) } else { gone.append(name) }
        }
        next.sort(by: Self.older)
        files = next
        names = present
        for name in gone { names.remove(name) }
        return next
    }

    private static func older(_ a: RetentionPolicy.File, _ b: RetentionPolicy.File) -> Bool {
        (a.modified, a.name) < (b.modified, b.name)
    }

    private func directoryStamp() -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), modified: info.st_mtim, changed: info.st_ctim)
    }

    /// Every name in the folder but `.` and `..`; none when it cannot be read.
    private func directoryNames() -> Set<String> {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: Set<String> = []
        names.reserveCapacity(files.count + 64)
        while let entry = readdir(dir) {
            // A folder or a symlink is never a candidate: skip it without a stat.
            if entry.pointee.d_type == DT_DIR || entry.pointee.d_type == DT_LNK { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != ".", name != ".." { names.insert(name) }
        }
        return names
    }

    /// The file `name` as `lstat` finds it; nil when it is gone or not a regular file.
    private func file(named name: String) -> RetentionPolicy.File? {
        var info = stat()
        guard lstat(path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return RetentionPolicy.File(
            name: name, kind: RecordingKind(fileName: name), bytes: Int64(info.st_size),
            allocated: Int64(info.st_blocks) * 512,
            modified: Date(timeIntervalSince1970: info.st_mtim.seconds))
    }
}
