import FoundationEssentials
import Glibc

/// One line of gpsd's JSON protocol, as far as Plumb reads it: every line is an object
/// with a `class`; TPV carries the fix, POLL (the answer to `?POLL;`) the fix gpsd holds
/// for each active receiver, VERSION says who answers, ERROR says what gpsd refused.
/// Anything else (DEVICES, WATCH, SKY, GST, PPS ...) is recognised and ignored.
///
/// A line that is not such an object, or a TPV whose fields have the wrong types or
/// impossible values, is `GPSDMessage.Malformed`: the client skips and counts it.
public enum GPSDMessage: Sendable, Equatable {
    case tpv(GPSFix)
    /// gpsd's answer to `?POLL;`: how many receivers it has that reported (`active`), and
    /// the TPV it holds for each (`tpv`).
    case poll(active: Int, fixes: [GPSFix])
    case version(release: String, protocolMajor: Int?, protocolMinor: Int?)
    case error(String)
    /// A message of another class, by its class name.
    case other(String)

    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Lines longer than this are refused before parsing (gpsd's longest, SKY with many
    /// satellites, is a few kilobytes).
    public static let maximumLineLength = 64 * 1024

    /// Parses one line, without its newline.
    public static func parse(_ line: some Collection<UInt8>) throws(Malformed) -> GPSDMessage {
        guard line.count <= maximumLineLength else { throw Malformed("a line of \(line.count) bytes, longer than any gpsd sends") }
        let data = Data(line)
        let decoder = JSONDecoder()
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw Malformed("not a gpsd JSON object with a \"class\": \(Self.excerpt(line))")
        }
        do {
            switch header.class {
            case "TPV": return .tpv(try fix(from: decoder.decode(TPV.self, from: data)))
            case "POLL":
                let poll = try decoder.decode(Poll.self, from: data)
                var fixes: [GPSFix] = []
                for tpv in poll.tpv ?? [] { fixes.append(try fix(from: tpv)) }
                return .poll(active: poll.active ?? fixes.count, fixes: fixes)
            case "VERSION":
                let v = try decoder.decode(Version.self, from: data)
                return .version(release: v.release, protocolMajor: v.proto_major, protocolMinor: v.proto_minor)
            case "ERROR": return .error((try? decoder.decode(ErrorMessage.self, from: data))?.message ?? "")
            default: return .other(header.class)
            }
        } catch let error as Malformed {
            throw error
        } catch {
            throw Malformed("a \(header.class) message with fields of the wrong type: \(Self.excerpt(line))")
        }
    }

    private static func excerpt(_ line: some Collection<UInt8>) -> String {
        let text = String(decoding: line.prefix(80), as: UTF8.self)
        return line.count > 80 ? text + "..." : text
    }

    private struct Header: Decodable { var `class`: String }
    private struct Version: Decodable {
        var release: String
        var proto_major: Int?
        var proto_minor: Int?
    }
    private struct ErrorMessage: Decodable { var message: String }
    private struct Poll: Decodable {
        var active: Int?
        var tpv: [TPV]?
    }

    /// The TPV fields Plumb reads, as gpsd names them.
    private struct TPV: Decodable {
        var device: String?
        var mode: Int?
        var time: String?
        var lat: Double?
        var lon: Double?
        var altMSL: Double?
        var alt: Double?
        var eph: Double?
        var epx: Double?
        var epy: Double?
        var speed: Double?
        var track: Double?
    }

    private static func fix(from tpv: TPV) throws(Malformed) -> GPSFix {
        // gpsd always sends a mode; an old or odd one without it knows nothing.
        guard let mode = GPSFix.Mode(rawValue: tpv.mode ?? 0) else {
            throw Malformed("a TPV with mode \(tpv.mode ?? 0) (gpsd's modes are 0 to 3)")
        }
        var fix = GPSFix(mode: mode, device: tpv.device)
        guard mode == .twoD || mode == .threeD else { return fix }
        // gpsd 3.22, its receiver just opened, reports the mode of a GSA before any sentence
        // with the position: {"class":"TPV","device":"/dev/pts/1","mode":3,"epv":29.900,...}.
        // A report without a position (`hasPosition` false), not a malformed line.
        guard tpv.lat != nil || tpv.lon != nil else { return fix }
        guard let lat = tpv.lat, let lon = tpv.lon else {
            throw Malformed("a TPV with a \(mode) fix but only one of lat and lon")
        }
        guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw Malformed("a TPV with the impossible position lat \(lat), lon \(lon)")
        }
        fix.latitude = lat
        fix.longitude = lon
        fix.altitude = (tpv.altMSL ?? tpv.alt).flatMap { $0.isFinite && (-1e5...1e6).contains($0) ? $0 : nil }
        fix.horizontalError = tpv.eph ?? tpv.epx.flatMap { x in tpv.epy.map { y in (x * x + y * y).squareRoot() } }
        fix.horizontalError = fix.horizontalError.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        fix.speed = tpv.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        fix.track = tpv.track.flatMap { $0.isFinite && (0...360).contains($0) ? $0.truncatingRemainder(dividingBy: 360) : nil }
        fix.time = tpv.time.flatMap(parseTime)
        return fix
    }

    /// gpsd's ISO 8601 UTC time, "2019-03-14T12:31:04.000Z" (fractions optional).
    static func parseTime(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
