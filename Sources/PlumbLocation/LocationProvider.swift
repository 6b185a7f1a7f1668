import FoundationEssentials
import Glibc

/// The location a capture carries, from its `LocationSource`: a fixed place, gpsd's fix,
/// or none. A location is an annotation, never a precondition: `current()` answers at
/// once, and nil means a capture without GPS, never a refusal. A one-shot capture may first
/// wait a bounded time for gpsd's word on its receiver (`waitForGPSD(until:)`): the answer
/// to the client's poll, or the receiver's first report when gpsd had none to give;
/// `reading()` says why there is no location, from the same look at the client as the answer.
///
/// gpsd's fix is used while it is younger than `maxFixAge`, counted on the monotonic
/// clock from when the report was received: never by comparing its GPS time with the
/// wall clock, which on a board without a real-time clock may be hours or years off (and
/// a replayed log carries old times). A no-fix report is not used; a 2D fix is used
/// without altitude. When the wall clock is not synchronised and the fix has a GPS time,
/// the location says so (`GeoLocation.clockUnsynchronized`).
public final class LocationProvider: Sendable {
    public let source: LocationSource
    public let maxFixAge: Duration
    /// The gpsd client, for `.gpsd` sources.
    public let client: GPSDClient?
    private let clockSynchronized: @Sendable () -> Bool?

    public static let defaultMaxFixAge: Duration = .seconds(300)
    /// The longest a one-shot capture waits for gpsd's word on its receiver, counted from when
    /// the provider started. gpsd holding a fix answers the poll in milliseconds; gpsd run
    /// without -n (Debian's default) first opens its receiver, on the watch (about 1 s for a
    /// pty here), and the receiver reports about once a second.
    public static let answerWait: Duration = .seconds(5)

    /// A capture's location, or why it has none.
    public struct Reading: Sendable, Equatable {
        public var location: GeoLocation?
        /// Why there is no location, in words, for a gpsd source without a usable fix; nil
        /// with a location or for the other sources.
        public var whyNone: String?
    }

    /// Nothing runs until `start()`. `log` gets gpsd's outages and recoveries, one line
    /// each; `clockSynchronized` is the wall clock's state (replaced in tests).
    public init(source: LocationSource, maxFixAge: Duration = LocationProvider.defaultMaxFixAge,
                backoff: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(10)),
                log: @escaping @Sendable (GPSDClient.Notice) -> Void = { _ in },
                clockSynchronized: @escaping @Sendable () -> Bool? = { WallClock.isSynchronized() }) {
        self.source = source
        self.maxFixAge = maxFixAge
        self.clockSynchronized = clockSynchronized
        if case let .gpsd(host, port) = source {
            client = GPSDClient(host: host, port: port, backoff: backoff, log: log)
        } else {
            client = nil
        }
    }

    /// Connects to gpsd in the background (nothing to do for other sources).
    public func start() { client?.start() }

    /// Disconnects from gpsd.
    public func stop() { client?.stop() }

    /// Waits until gpsd has given its receiver's word (a fix or a no-fix, in the answer to the
    /// poll or a report), or could not be reached, or until `deadline` (nothing to wait for
    /// with other sources). True when it answered or failed, false when the deadline came first.
    @discardableResult
    public func waitForGPSD(until deadline: ContinuousClock.Instant) async -> Bool {
        guard let client else { return true }
        return await client.waitForAnswer(until: deadline)
    }

    /// The location for a capture now; nil for none.
    public func current(now: ContinuousClock.Instant = .now) -> GeoLocation? {
        reading(now: now).location
    }

    /// The location for a capture now, or why there is none: both from one snapshot of the
    /// client, so the reason is the one that decided.
    public func reading(now: ContinuousClock.Instant = .now) -> Reading {
        switch source {
        case .off: return Reading()
        case .fixed(let location): return Reading(location: location)
        case .gpsd:
            let snapshot = client?.snapshot ?? GPSDClient.Snapshot()
            if let fix = snapshot.fix, fix.hasPosition, let age = snapshot.fixAge(now: now), age <= maxFixAge {
                return Reading(location: fix.location(age: age, clockUnsynchronized: fix.time != nil && clockSynchronized() == false))
            }
            return Reading(whyNone: Self.whyNone(snapshot, now: now, maxFixAge: maxFixAge))
        }
    }

    /// Why `snapshot` gives no location, checked in the order that decides it.
    static func whyNone(_ snapshot: GPSDClient.Snapshot, now: ContinuousClock.Instant, maxFixAge: Duration) -> String {
        if case .unavailable = snapshot.state { return "gpsd is \(snapshot.state)" }
        if let fix = snapshot.fix, fix.hasPosition, let age = snapshot.fixAge(now: now) {
            return "gpsd's last fix is \(Self.seconds(age)) s old, more than the \(Self.seconds(maxFixAge)) s allowed (max fix age)"
        }
        if let fix = snapshot.fix {
            return fix.mode == .unknown ? "gpsd's receiver has not reported a fix yet (mode 0)"
                : "gpsd reports no fix: its receiver does not know where it is (mode \(fix.mode.rawValue))"
        }
        switch snapshot.state {
        case .stopped: return "gpsd was not asked (the client is stopped)"
        case .connecting: return "gpsd has not answered yet"
        case .unavailable: return "gpsd is \(snapshot.state)"
        case .connected:
            guard snapshot.polled else { return "gpsd has not answered the poll for its fix yet" }
            return snapshot.receivers == 0 ? "gpsd has no GPS receiver that reports" : "gpsd's receiver has not reported a fix yet"
        }
    }

    /// Seconds to one decimal, rounded up: an age just over the limit never reads as the limit.
    private static func seconds(_ d: Duration) -> String {
        let tenths = (d.seconds * 10).rounded(.up) / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    /// What `GET /status` shows.
    public func status(now: ContinuousClock.Instant = .now) -> LocationStatus {
        var status = LocationStatus(source: source.description, maxFixAgeSeconds: maxFixAge.seconds)
        switch source {
        case .off:
            status.state = "off"
        case .fixed(let location):
            status.state = "fixed"
            status.fix = LocationStatus.Fix(location: location)
            status.gps = true
        case .gpsd:
            guard let snapshot = client?.snapshot else { break }
            status.state = "\(snapshot.state)"
            status.gpsdRelease = snapshot.release
            status.skippedLines = snapshot.skippedLines
            status.connections = snapshot.connections
            if let fix = snapshot.fix {
                status.fix = LocationStatus.Fix(fix)
                status.fixAgeSeconds = snapshot.fixAge(now: now).map { ($0.seconds * 10).rounded() / 10 }
            }
            status.gps = current(now: now) != nil
            status.clockSynchronized = clockSynchronized()
        }
        return status
    }
}
