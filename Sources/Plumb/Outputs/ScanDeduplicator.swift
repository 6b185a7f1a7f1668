import FoundationEssentials
import Glibc

/// Duplicate suppression: a code that stays in view is one detection; it is new again only
/// once it has been out of view for longer than `forgetAfter`, on the frames' own clock.
struct ScanDeduplicator {
    struct Key: Hashable {
        var symbology: Symbology
        var data: Data
    }

    /// Nanoseconds.
    var forgetAfter: UInt64
    /// When each code was last seen (frame time, nanoseconds).
    private var lastSeen: [Key: UInt64] = [:]

    init(forgetAfter: Duration) {
        self.forgetAfter = forgetAfter.nanoseconds
    }

    /// The codes of one frame at `time` that are new: not seen within `forgetAfter` before it.
    mutating func newCodes(_ keys: [Key], at time: UInt64) -> [Key] {
        var fresh: [Key] = []
        for key in Set(keys) {
            if let seen = lastSeen[key], time &- seen <= forgetAfter, time >= seen {
                // still in view (or gone for less than forgetAfter)
            } else {
                fresh.append(key)
            }
            lastSeen[key] = time
        }
        lastSeen = lastSeen.filter { time < $0.value || time - $0.value <= forgetAfter }
        return keys.filter { fresh.contains($0) }.reduce(into: [Key]()) { if !$0.contains($1) { $0.append($1) } }
    }
}
