import Foundation

/// The location a capture carries, from its `LocationSource`: a fixed place, gpsd's fix,
/// or none. A location is an annotation, never a precondition: `current()` answers at
/// once, and nil means a capture without GPS, never a refusal.
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

    /// The location for a capture now; nil for none.
    public func current(now: ContinuousClock.Instant = .now) -> GeoLocation? {
        switch source {
        case .off: return nil
        case .fixed(let location): return location
        case .gpsd:
            guard let snapshot = client?.snapshot, let fix = snapshot.fix, fix.hasPosition,
                  let age = snapshot.fixAge(now: now), age <= maxFixAge else { return nil }
            return fix.location(age: age, clockUnsynchronized: fix.time != nil && clockSynchronized() == false)
        }
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
