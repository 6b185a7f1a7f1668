import FoundationEssentials
import Glibc
import PlumbBase

/// Which recordings `plumb serve` deletes to stay within `[recording] max-bytes`,
/// `min-free-bytes` and `max-age`: pure, no files, so that its choices are tested on
/// their own (`Retention` lists the folder, asks this, and unlinks).
///
/// Only complete recordings of the allowed kinds are candidates, never a file in use (being
/// written, or a clip being answered); the oldest go first, by modification time — file
/// names follow a wall clock that can jump (a board without a real-time clock boots in
/// 1970, then NTP moves it), the time a file was last written does not lie about order.
public struct RetentionPolicy: Sendable, Equatable {
    /// `max-bytes`: the folder's recordings may hold at most this much; 0: no limit.
    public var maxBytes: Int64 = 0
    /// `min-free-bytes`: the file system keeps at least this much free.
    public var minFree: FreeSpace = .percent(5)
    /// `max-age`: nothing older than this is kept; zero: no limit.
    public var maxAge: Duration = .zero
    /// `retention-kinds`: the kinds that may be deleted.
    public var kinds: Set<RecordingKind> = Set(RecordingKind.allCases)

    /// Below this much free space no recording starts, whatever `min-free-bytes` says: a
    /// file needs room for its header and a fragment or two.
    public static let leastRoom: Int64 = 64 * 1024

    public init(maxBytes: Int64 = 0, minFree: FreeSpace = .percent(5), maxAge: Duration = .zero,
                kinds: Set<RecordingKind> = Set(RecordingKind.allCases)) {
        self.maxBytes = maxBytes
        self.minFree = minFree
        self.maxAge = maxAge
        self.kinds = kinds
    }

    /// `min-free-bytes`: a size, or a share of the file system (`5%`), so that one default
    /// suits a 4 GB card and a 1 TB disk.
    public enum FreeSpace: Sendable, Equatable, CustomStringConvertible {
        case bytes(Int64)
        /// Percent of the file system's size, 0 up to (not including) 100.
        case percent(Double)

        /// The bytes it means on a file system of `total` bytes.
        public func bytes(ofDiskSized total: Int64) -> Int64 {
            switch self {
            case .bytes(let n): n
            case .percent(let p): Int64((Double(total) * p / 100).rounded(.up))
            }
        }

        /// As the config file writes it: `5%`, `2G`.
        public var description: String {
            switch self {
            case .bytes(let n): renderByteCount(n)
            case .percent(let p): (p == p.rounded() ? String(Int(p)) : String(p)) + "%"
            }
        }
    }

    /// One file of the recordings folder.
    public struct File: Sendable, Equatable {
        public var name: String
        /// nil: not a recording (a hidden or temporary file): counted, never deleted.
        public var kind: RecordingKind?
        /// Its size (what `max-bytes` counts).
        public var bytes: Int64
        /// What deleting it gives back to the file system (its blocks).
        public var allocated: Int64
        public var modified: Date

        public init(name: String, kind: RecordingKind?, bytes: Int64, allocated: Int64? = nil, modified: Date) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
            self.allocated = allocated ?? bytes
            self.modified = modified
        }
    }

    /// The file system holding the folder (statvfs).
    public struct Disk: Sendable, Equatable {
        public var total: Int64
        public var free: Int64
        public init(total: Int64, free: Int64) {
            self.total = total
            self.free = free
        }
    }

    /// Which limit a deletion is for, as `/events` and the log say it.
    public enum Reason: String, Sendable, Encodable {
        case maxAge = "max-age"
        case maxBytes = "max-bytes"
        case minFree = "min-free-bytes"
    }

    public struct Deletion: Sendable, Equatable {
        public var file: File
        public var reason: Reason
    }

    /// The bytes `min-free-bytes` keeps free on `disk`.
    public func minFreeBytes(on disk: Disk) -> Int64 { minFree.bytes(ofDiskSized: disk.total) }

    /// May `file` be deleted at all?
    public func mayDelete(_ file: File, inUse: Set<String>) -> Bool {
        guard let kind = file.kind else { return false }
        return kinds.contains(kind) && !inUse.contains(file.name)
    }

    /// The files to delete, in order (oldest first), each with the limit it is for: first
    /// everything older than `max-age`, then the oldest until the folder is within
    /// `max-bytes` and the disk has `min-free-bytes` free. Stops when nothing more may be
    /// deleted, even if a limit is still not met (the caller says so).
    public func deletions(of files: [File], inUse: Set<String>, disk: Disk, now: Date) -> [Deletion] {
        var folderBytes = files.reduce(Int64(0)) { $0 + $1.bytes }
        var free = disk.free
        let needFree = minFreeBytes(on: disk)
        let candidates = files.filter { mayDelete($0, inUse: inUse) }
            .sorted { ($0.modified, $0.name) < ($1.modified, $1.name) }
        var deletions: [Deletion] = []
        let maxAgeSeconds = Double(maxAge.components.seconds) + Double(maxAge.components.attoseconds) / 1e18
        for file in candidates {
            let reason: Reason
            if maxAgeSeconds > 0, now.timeIntervalSince(file.modified) > maxAgeSeconds {
                reason = .maxAge
            } else if maxBytes > 0, folderBytes > maxBytes {
                reason = .maxBytes
            } else if free < needFree {
                reason = .minFree
            } else {
                // Oldest first: a file too young for max-age means every later one is too.
                break
            }
            deletions.append(Deletion(file: file, reason: reason))
            folderBytes -= file.bytes
            free += file.allocated
        }
        return deletions
    }
}

/// What a recording in the folder is, for `[recording] retention-kinds`, by its name.
public enum RecordingKind: String, Sendable, CaseIterable, Comparable, Encodable {
    /// A file of the continuous (or `POST /recording/start`) recording: `DATE.mp4`.
    case segment
    /// A `POST /clip` its client could not take, kept: `clip-DATE.mp4`.
    case clip
    /// An event clip: `event-DATE.mp4`.
    case event
    /// A still (SIGUSR1): `DATE.jpg`.
    case still

    /// The kind of a file of the folder; nil for what is not a recording (hidden and
    /// temporary files start with `.`, anything else that is not .mp4/.jpg/.jpeg).
    public init?(fileName name: String) {
        guard !name.hasPrefix("."), name.utf8.count <= 255 else { return nil }
        switch RecordingsFolder.fileExtension(name) {
        case "mp4":
            self = name.hasPrefix("clip-") ? .clip : name.hasPrefix("event-") ? .event : .segment
        case "jpg", "jpeg":
            self = .still
        default:
            return nil
        }
    }

    public static func < (a: RecordingKind, b: RecordingKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// `[recording] retention-kinds`: a comma list of kinds (`segment, still`), or `none`.
func parseRecordingKinds(_ text: String) -> Set<RecordingKind>? {
    if text.lowercased() == "none" { return [] }
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        .map { $0.trimmed.lowercased() }
    guard !parts.isEmpty else { return nil }
    var kinds: Set<RecordingKind> = []
    for part in parts {
        guard let kind = RecordingKind(rawValue: part) else { return nil }
        kinds.insert(kind)
    }
    return kinds
}

func renderRecordingKinds(_ kinds: Set<RecordingKind>) -> String {
    kinds.isEmpty ? "none" : kinds.sorted().map(\.rawValue).joined(separator: ",")
}

/// `[recording] min-free-bytes`: a size (`2G`) or a percentage of the file system (`5%`, below 100).
func parseFreeSpace(_ text: String) -> RetentionPolicy.FreeSpace? {
    if text.hasSuffix("%") {
        let number = text.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let p = Double(number), p.isFinite, p >= 0, p < 100 else { return nil }
        return .percent(p)
    }
    return parseByteCount(text).map { .bytes($0) }
}
