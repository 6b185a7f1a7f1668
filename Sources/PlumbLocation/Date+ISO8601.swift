import Foundation

extension Date {
    /// "2026-11-02T22:55:01.123Z".
    package var iso8601Milliseconds: String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: self)
    }
}
