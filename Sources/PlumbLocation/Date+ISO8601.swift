import Dispatch
import FoundationEssentials
import Glibc
import PlumbBase

extension Date {
    /// "2026-11-02T22:55:01.123Z".
    package var iso8601Milliseconds: String {
        // Rounded to the millisecond, as EXIF's SubSecTime* are (ISO8601FormatStyle cuts).
        let milliseconds = Int64((timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var t = tm()
        gmtime_r(&seconds, &t)
        return String(cFormat: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(t.tm_year) + 1900, Int(t.tm_mon) + 1, Int(t.tm_mday),
                      Int(t.tm_hour), Int(t.tm_min), Int(t.tm_sec), fraction)
    }
}
