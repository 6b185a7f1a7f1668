import Plumb
import PlumbLocation

extension ServeConfig {
    /// `[location]`: where stills, clips and recordings get their GPS.
    public struct Location: Sendable, Equatable {
        /// `source`: `off` (default), `gpsd` (127.0.0.1:2947), `gpsd:HOST:PORT` or
        /// `fixed:LAT,LON[,ALT]`.
        public var source: LocationSource = .off
        /// `max-fix-age`: seconds; a gpsd fix older than this is not used. Default 300.
        public var maxFixAge = 300.0
        public init() {}
    }

    /// The keys of `[location]`, in file order.
    static let locationKeys: [ConfigKey] = [
        ConfigKey(group: "location", name: "source",
                  accepted: LocationSource.accepted,
                  documentation: "Where stills and recordings get their GPS: off, gpsd (this machine's gpsd on 127.0.0.1:2947),\ngpsd:HOST:PORT, or fixed:LAT,LON[,ALT] (degrees, north and east positive; metres).\nA fix is an annotation: without one a capture goes without GPS, never waits.",
                  \.location.source, parse: { try? LocationSource(parsing: $0) }, render: \.description),
        ConfigKey(group: "location", name: "max-fix-age",
                  accepted: "a number of seconds from 0.1 to 86400",
                  documentation: "Seconds: a gpsd fix older than this, counted from when it arrived, is not used.",
                  \.location.maxFixAge, parse: { parseDouble($0, in: 0.1...86_400) }, render: { $0 == $0.rounded() ? String(Int($0)) : String($0) }),
    ]
}
