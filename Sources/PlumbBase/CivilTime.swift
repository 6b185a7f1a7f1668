import FoundationEssentials
import Glibc

/// A moment's calendar fields in UTC (C's gmtime_r) or in the system's local time (localtime_r:
/// TZ, else /etc/localtime). FoundationEssentials alone knows no named zone: its
/// `TimeZone.current` is always UTC, and no zone is called "UTC" (issue 26).
public struct CivilTime: Sendable, Equatable {
    public var year, month, day, hour, minute, second: Int
    /// Seconds east of UTC at that moment (summer time included); 0 in UTC.
    public var offset: Int

    /// The whole second `seconds` since 1970 falls in.
    public init(_ seconds: Int64, local: Bool) {
        var time = time_t(seconds)
        var t = tm()
        _ = local ? localtime_r(&time, &t) : gmtime_r(&time, &t)
        year = Int(t.tm_year) + 1900
        month = Int(t.tm_mon) + 1
        day = Int(t.tm_mday)
        hour = Int(t.tm_hour)
        minute = Int(t.tm_min)
        second = Int(t.tm_sec)
        offset = Int(t.tm_gmtoff)
    }

    public init(_ date: Date, local: Bool) {
        self.init(Int64(date.timeIntervalSince1970.rounded(.down)), local: local)
    }
}

extension TimeZone {
    /// The system's local time zone at `date`, fixed at that instant's offset.
    public static func local(at date: Date) -> TimeZone {
        TimeZone(secondsFromGMT: CivilTime(date, local: true).offset) ?? .gmt
    }
}
