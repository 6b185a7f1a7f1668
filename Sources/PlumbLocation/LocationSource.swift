import FoundationEssentials
import Glibc
import PlumbBase

/// Where captures get their location: `gpsd[:HOST:PORT]`, `fixed:LAT,LON[,ALT]` or `off`,
/// as `plumb photo|record --location` and `[location] source` write it.
public enum LocationSource: Sendable, Hashable, CustomStringConvertible {
    /// gpsd's latest fix (`GPSDClient`).
    case gpsd(host: String, port: UInt16)
    /// The same place for every capture.
    case fixed(GeoLocation)
    /// No location.
    case off

    /// gpsd on this machine's default port.
    public static let localGPSD = LocationSource.gpsd(host: GPSDClient.defaultHost, port: GPSDClient.defaultPort)

    /// What is accepted, for error messages.
    public static let accepted = "gpsd, gpsd:HOST:PORT, fixed:LAT,LON or fixed:LAT,LON,ALT (degrees, north and east "
        + "positive; metres), or off"

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Parses the text form; the error says what to write instead.
    public init(parsing text: String) throws(ParseError) {
        if text == "off" {
            self = .off
        } else if text == "gpsd" {
            self = .localGPSD
        } else if text.hasPrefix("gpsd:") {
            let rest = String(text.dropFirst(5))
            // HOST:PORT, or [IPV6]:PORT.
            guard let colon = rest.lastIndex(of: ":") else {
                throw ParseError("\(text): expected gpsd:HOST:PORT, such as gpsd:127.0.0.1:2947")
            }
            var host = String(rest[..<colon])
            let portText = rest[rest.index(after: colon)...]
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "\0" }) else {
                throw ParseError("\(text): the host is missing or not a host name or address")
            }
            guard let port = UInt16(portText), port > 0 else {
                throw ParseError("\(text): the port \"\(portText)\" is not a number from 1 to 65535")
            }
            self = .gpsd(host: host, port: port)
        } else if text.hasPrefix("fixed:") {
            self = .fixed(try Self.parseCoordinates(String(text.dropFirst(6)), in: text))
        } else {
            throw ParseError("\(text): expected \(Self.accepted)")
        }
    }

    /// "LAT,LON" or "LAT,LON,ALT" in degrees and metres; `whole` names it in errors.
    public static func parseCoordinates(_ text: String, in whole: String) throws(ParseError) -> GeoLocation {
        let texts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmed }
        let parts = texts.map { Double($0) }
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0?.isFinite == true }) else {
            throw ParseError("\(whole): expected LAT,LON or LAT,LON,ALT in degrees and metres, such as 48.8584,2.2945,35")
        }
        let latitude = parts[0]!, longitude = parts[1]!
        guard (-90...90).contains(latitude) else {
            throw ParseError("\(whole): latitude \(texts[0]) is out of range (-90 to 90)")
        }
        guard (-180...180).contains(longitude) else {
            throw ParseError("\(whole): longitude \(texts[1]) is out of range (-180 to 180)")
        }
        return GeoLocation(latitude: latitude, longitude: longitude, altitude: parts.count == 3 ? parts[2] : nil)
    }

    /// The text form, which `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .off: return "off"
        case let .gpsd(host, port):
            if host == GPSDClient.defaultHost && port == GPSDClient.defaultPort { return "gpsd" }
            return host.contains(":") ? "gpsd:[\(host)]:\(port)" : "gpsd:\(host):\(port)"
        case .fixed(let g):
            return "fixed:" + [g.latitude, g.longitude].map(Self.number).joined(separator: ",")
                + (g.altitude.map { "," + Self.number($0) } ?? "")
        }
    }

    private static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
