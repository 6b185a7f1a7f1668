import FoundationEssentials
import Glibc

/// A recording could not be repaired, moved or locked; the message says what and why.
public struct RepairError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// The folder is locked by another plumb process (`FolderLock`).
    public var isInUse = false

    public init(_ description: String, isInUse: Bool = false) {
        self.description = description
        self.isInUse = isInUse
    }

    /// A failed system call on `path`, with errno's text.
    static func system(_ what: String, _ path: String, errno code: Int32 = errno) -> RepairError {
        RepairError("cannot \(what) \(path): \(String(cString: strerror(code)))")
    }
}
