import FoundationEssentials
import Glibc

extension timespec {
    /// Seconds since the epoch, as `stat` gives a file's times to the nanosecond.
    var seconds: TimeInterval { TimeInterval(tv_sec) + TimeInterval(tv_nsec) / 1e9 }
}
