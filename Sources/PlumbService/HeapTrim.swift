import FoundationEssentials
import Glibc

/// Gives the heap's free pages back to the system (glibc's `malloc_trim(0)`). glibc keeps
/// what a thread freed in its arena for reuse: after a thumbnail (libav's frame pools) or
/// minutes of recording segments coming and going, several MB stay resident though free —
/// measured with bench/memory-growth.sh: 4.8 MB back after 4 thumbnails, 3.7 MB after 20 s
/// of 2 s segments. Costs about a millisecond on the daemon's heap.
enum HeapTrim {
    /// How often the daemon trims while it runs.
    static let interval: Duration = .seconds(60)

    /// `int malloc_trim(size_t pad)`, found at run time: Swift's Glibc module leaves
    /// <malloc.h> out, and a C shim for one call is more than it is worth. nil on a libc
    /// without it (musl).
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
    }()

    static func now() { _ = trim?(0) }
}
