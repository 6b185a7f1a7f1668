import FoundationEssentials
import Glibc
import Synchronization
import Plumb
import PlumbLocation
import PlumbMedia

/// Keeps the recordings folder within `[recording] max-bytes`, `min-free-bytes` and
/// `max-age`: lists the folder, lets `RetentionPolicy` choose, deletes. `plumb serve` runs a
/// pass before a recording starts, when a file is finished, every `interval` while it
/// serves, and at once on a write error.
///
/// Only regular files directly in the folder are looked at (`lstat`: a symlink is never
/// followed, `damaged/` and other folders are never entered); hidden and temporary files
/// (`.clip-*`, `.*.tmp`) are counted but never deleted, nor any file in `FilesInUse`, nor an
/// .mp4 without a movie header (not complete). Each deletion is logged with its size and
/// reason, sent as a `deleted` event and counted for `GET /status`.
public final class Retention: Sendable {
    public let policy: RetentionPolicy
    public let folder: RecordingsFolder
    public let inUse: FilesInUse
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void
    private let counts = Mutex(Counts())
    /// One pass at a time (the timer, a finished file and a write error can come together),
    /// each on the folder as the last one left it.
    private let passing: Mutex<FolderListing>

    /// How often a pass runs while serving (and a recording stopped by a full disk looks
    /// for room again).
    public static let interval: Duration = .seconds(3)

    private struct Counts {
        var deleted = 0
        var deletedBytes: Int64 = 0
        var last: Status.Last?
        /// Why the limits are not met although nothing more may be deleted; said once.
        var shortfall: String?
    }

    public init(policy: RetentionPolicy, folder: RecordingsFolder, inUse: FilesInUse,
                publish: @escaping @Sendable (ServiceEvent) -> Void, log: @escaping @Sendable (String) -> Void) {
        self.policy = policy
        self.folder = folder
        self.inUse = inUse
        self.publish = publish
        self.log = log
        passing = Mutex(FolderListing(path: folder.path))
    }

    /// One pass: deletes what the policy chooses; returns what was deleted. `trigger` says
    /// why the pass runs, for the log.
    @discardableResult
    public func run(because trigger: String) -> [RetentionPolicy.Deletion] {
        passing.withLock { listing in pass(trigger, &listing) }
    }

    private func pass(_ trigger: String, _ listing: inout FolderListing) -> [RetentionPolicy.Deletion] {
        guard let disk = disk() else { return [] }
        // Only min-free-bytes (the default) and it is met: statvfs says all, no need to list
        // a folder that may hold tens of thousands of files.
        if policy.maxBytes == 0, policy.maxAge == .zero, disk.free >= policy.minFreeBytes(on: disk) {
            checkShortfall(files: nil, deleted: [])
            return []
        }
        let files = listing.refresh(busy: inUse.names)
        let busy = inUse.names
        let chosen = policy.deletions(of: files, inUse: busy, disk: disk, now: Date())
        var done: [RetentionPolicy.Deletion] = []
        for deletion in chosen where delete(deletion, trigger: trigger) { done.append(deletion) }
        checkShortfall(files: files, deleted: done)
        return done
    }

    /// Deletes one file if it still is the complete, unused, regular file that was chosen.
    private func delete(_ deletion: RetentionPolicy.Deletion, trigger: String) -> Bool {
        let name = deletion.file.name, path = folder.path + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              !inUse.names.contains(name) else { return false }
        if deletion.file.kind != .still, !MP4File.hasMovieHeader(path: path) { return false }
        guard unlink(path) == 0 else {
            let why = String(cString: strerror(errno))
            report(problem: "retention could not delete \(path): \(why)")
            return false
        }
        let bytes = Int64(info.st_size)
        let last = Status.Last(file: name, bytes: bytes, reason: deletion.reason.rawValue,
                               at: Date().iso8601Milliseconds)
        counts.withLock { c in
            c.deleted += 1
            c.deletedBytes += bytes
            c.last = last
        }
        log("retention: deleted \(name) (\(bytes) bytes, \(deletion.file.kind?.rawValue ?? "file") of "
            + "\(deletion.file.modified.iso8601Milliseconds)): \(sentence(for: deletion.reason)); pass on \(trigger)")
        publish(.deleted(file: name, bytes: bytes, reason: deletion.reason.rawValue))
        return true
    }

    private func sentence(for reason: RetentionPolicy.Reason) -> String {
        switch reason {
        case .maxAge: "older than max-age \(renderAge(policy.maxAge))"
        case .maxBytes: "the folder is over max-bytes \(renderByteCount(policy.maxBytes))"
        case .minFree: "less than min-free-bytes \(policy.minFree) free on the file system"
        }
    }

    /// Says once (log and `error` event) when the limits stay unmet because nothing more
    /// may be deleted, and once more when they are met again.
    /// `files`: the folder as listed (nil: not listed, max-bytes is not set).
    private func checkShortfall(files: [RetentionPolicy.File]?, deleted: [RetentionPolicy.Deletion]) {
        guard let disk = disk() else { return }
        let gone = Set(deleted.map(\.file.name))
        let folderBytes = (files ?? []).reduce(Int64(0)) { gone.isEmpty || !gone.contains($1.name) ? $0 + $1.bytes : $0 }
        var unmet: [String] = []
        if policy.maxBytes > 0, folderBytes > policy.maxBytes {
            unmet.append("the folder holds \(folderBytes) bytes, over max-bytes \(renderByteCount(policy.maxBytes))")
        }
        let need = policy.minFreeBytes(on: disk)
        if disk.free < need {
            unmet.append("\(disk.free) bytes are free, less than min-free-bytes \(policy.minFree) (\(need) bytes)")
        }
        let shortfall = unmet.isEmpty ? nil : unmet.joined(separator: " and ")
            + " in \(folder.path), and nothing more may be deleted (retention-kinds = "
            + renderRecordingKinds(policy.kinds) + "; files being written are kept)"
        let previous = counts.withLock { c in
            defer { c.shortfall = shortfall }
            return c.shortfall
        }
        // The log and /status only: an `error` event is for what failed, and this is a limit
        // the operator set that the folder cannot meet yet.
        if let shortfall, previous == nil {
            log("retention: \(shortfall)")
        } else if shortfall == nil, previous != nil {
            log("retention: the limits are met again")
        }
    }

    /// nil when a recording may start now: the file system has `min-free-bytes` free (and
    /// at least `RetentionPolicy.leastRoom`); else why not, in words.
    public func noRoom() -> String? {
        guard let disk = disk() else { return nil }
        let need = max(policy.minFreeBytes(on: disk), RetentionPolicy.leastRoom)
        guard disk.free < need else { return nil }
        return "no room to record in \(folder.path): \(disk.free) bytes free, \(need) needed "
            + "([recording] min-free-bytes = \(policy.minFree)), even after deleting what retention may "
            + "(retention-kinds = \(renderRecordingKinds(policy.kinds))); free some space"
    }

    private func disk() -> RetentionPolicy.Disk? {
        var s = statvfs()
        guard statvfs(folder.path, &s) == 0 else { return nil }
        return RetentionPolicy.Disk(total: Int64(s.f_blocks) * Int64(s.f_frsize), free: Int64(s.f_bavail) * Int64(s.f_frsize))
    }

    private func report(problem: String) {
        publish(.error(message: problem))
        log("error: \(problem)")
    }

    // MARK: GET /status

    /// `GET /status`'s `retention`: the limits, what was deleted, and any limit not met.
    public struct Status: Encodable, Sendable {
        public var deleted: Int
        public var deletedBytes: Int64
        public var last: Last?
        public var maxBytes: Int64
        /// `min-free-bytes` as configured (`5%`) and in bytes on this file system.
        public var minFree: String
        public var minFreeBytes: Int64?
        public var maxAgeSeconds: Int64
        public var kinds: [String]
        /// Why a limit is not met (nothing more may be deleted); null when they are.
        public var problem: String?

        public struct Last: Encodable, Sendable {
            public var file: String
            public var bytes: Int64
            public var reason: String
            public var at: String
        }

        enum CodingKeys: String, CodingKey {
            case deleted, deletedBytes = "deleted_bytes", last, maxBytes = "max_bytes", minFree = "min_free"
            case minFreeBytes = "min_free_bytes", maxAgeSeconds = "max_age_seconds", kinds, problem
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(deleted, forKey: .deleted)
            try c.encode(deletedBytes, forKey: .deletedBytes)
            try c.encode(last, forKey: .last)
            try c.encode(maxBytes, forKey: .maxBytes)
            try c.encode(minFree, forKey: .minFree)
            try c.encode(minFreeBytes, forKey: .minFreeBytes)
            try c.encode(maxAgeSeconds, forKey: .maxAgeSeconds)
            try c.encode(kinds, forKey: .kinds)
            try c.encode(problem, forKey: .problem)
        }
    }

    public var status: Status {
        let c = counts.withLock { $0 }
        return Status(deleted: c.deleted, deletedBytes: c.deletedBytes, last: c.last, maxBytes: policy.maxBytes,
                      minFree: policy.minFree.description, minFreeBytes: disk().map(policy.minFreeBytes(on:)),
                      maxAgeSeconds: policy.maxAge.components.seconds, kinds: policy.kinds.sorted().map(\.rawValue),
                      problem: c.shortfall)
    }
}
