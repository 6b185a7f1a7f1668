import FoundationEssentials
import Glibc

extension TimeZone {
    /// The system's local time zone at `date` (TZ, else /etc/localtime), as C's localtime_r
    /// reads it, fixed at that instant's offset (summer time included). FoundationEssentials
    /// alone knows no named zone: its `TimeZone.current` is always UTC (issue 26).
    public static func local(at date: Date) -> TimeZone {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var t = tm()
        guard localtime_r(&seconds, &t) != nil else { return .gmt }
        return TimeZone(secondsFromGMT: t.tm_gmtoff) ?? .gmt
    }
}
