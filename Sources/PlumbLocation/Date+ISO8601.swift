import Dispatch
import FoundationEssentials
import Glibc

extension Date {
    /// "2026-11-02T22:55:01.123Z".
    package var iso8601Milliseconds: String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).format(self)
    }
}
