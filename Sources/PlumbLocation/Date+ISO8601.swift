import FoundationEssentials
import Glibc
import PlumbBase

extension Date {
    /// "2026-11-02T22:55:01.123Z".
    package var iso8601Milliseconds: String {
        // Rounded to the millisecond, as EXIF's SubSecTime* are (ISO8601FormatStyle cuts).
        let milliseconds = Int64((timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        let t = CivilTime(seconds, local: false)
        return String(cFormat: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.year, t.month, t.day, t.hour, t.minute, t.second,
                      Int(fraction))
    }
}
