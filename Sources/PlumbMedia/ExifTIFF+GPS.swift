import FoundationEssentials
import Glibc
import PlumbBase
import PlumbLocation

extension ExifTIFF {
    /// The GPS tags of EXIF 2.31, in the GPS IFD (replacing one that was there):
    /// GPSVersionID 2.3.0.0; GPSLatitude/GPSLongitude as degrees, minutes and seconds with
    /// their N/S and E/W references; GPSAltitude and GPSAltitudeRef (0 above, 1 below sea
    /// level) when the location has an altitude; GPSTimeStamp and GPSDateStamp (UTC) when it
    /// has the fix's time; GPSHPositioningError in metres; GPSSpeed (km/h, ref K) and
    /// GPSTrack (degrees from true north, ref T) when known; GPSMapDatum WGS-84.
    package mutating func setGPS(_ location: GeoLocation) {
        var gps = Directory()
        gps.set(Entry(tag: GPSTag.version, type: 1, count: 4, value: [2, 3, 0, 0]))
        gps.set(.ascii(GPSTag.latitudeRef, location.latitude < 0 ? "S" : "N"))
        gps.set(rationals(GPSTag.latitude, Self.degreesMinutesSeconds(location.latitude)))
        gps.set(.ascii(GPSTag.longitudeRef, location.longitude < 0 ? "W" : "E"))
        gps.set(rationals(GPSTag.longitude, Self.degreesMinutesSeconds(location.longitude)))
        if let altitude = location.altitude, altitude.isFinite {
            gps.set(Entry(tag: GPSTag.altitudeRef, type: 1, count: 1, value: [altitude < 0 ? 1 : 0]))
            gps.set(rationals(GPSTag.altitude, [Self.rational(abs(altitude), denominator: 1000)]))
        }
        if let time = location.time {
            let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded())
            let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let c = Calendar(identifier: .gregorian).dateComponents(in: .gmt,
                                                                     from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            gps.set(rationals(GPSTag.timeStamp, [(UInt32(c.hour!), 1), (UInt32(c.minute!), 1),
                                                 (UInt32(c.second!) * 1000 + UInt32(fraction), 1000)]))
            gps.set(.ascii(GPSTag.dateStamp, String(cFormat: "%04d:%02d:%02d", c.year!, c.month!, c.day!)))
        }
        if let speed = location.speed, speed.isFinite, speed >= 0 {
            gps.set(.ascii(GPSTag.speedRef, "K"))
            gps.set(rationals(GPSTag.speed, [Self.rational(speed * 3.6, denominator: 100)]))
        }
        if let track = location.track, track.isFinite, (0..<360).contains(track) {
            gps.set(.ascii(GPSTag.trackRef, "T"))
            gps.set(rationals(GPSTag.track, [Self.rational(track, denominator: 100)]))
        }
        gps.set(.ascii(GPSTag.mapDatum, "WGS-84"))
        if let error = location.horizontalError, error.isFinite, error >= 0 {
            gps.set(rationals(GPSTag.horizontalPositioningError, [Self.rational(error, denominator: 100)]))
        }
        setSubdirectory(Tag.gpsIFD, gps)
    }

    /// The GPS IFD's tags, numbered from 0 in their own directory.
    enum GPSTag {
        static let version: UInt16 = 0x0000
        static let latitudeRef: UInt16 = 0x0001
        static let latitude: UInt16 = 0x0002
        static let longitudeRef: UInt16 = 0x0003
        static let longitude: UInt16 = 0x0004
        static let altitudeRef: UInt16 = 0x0005
        static let altitude: UInt16 = 0x0006
        static let timeStamp: UInt16 = 0x0007
        static let speedRef: UInt16 = 0x000C
        static let speed: UInt16 = 0x000D
        static let trackRef: UInt16 = 0x000E
        static let track: UInt16 = 0x000F
        static let mapDatum: UInt16 = 0x0012
        static let dateStamp: UInt16 = 0x001D
        static let horizontalPositioningError: UInt16 = 0x001F
    }

    /// Whole degrees, whole minutes and seconds to 1/10000 (3 mm on the ground), of |angle|.
    static func degreesMinutesSeconds(_ angle: Double) -> [(UInt32, UInt32)] {
        let tenThousandths = UInt64((abs(angle) * 3600 * 10_000).rounded())
        let (degrees, rest) = tenThousandths.quotientAndRemainder(dividingBy: 3600 * 10_000)
        let (minutes, seconds) = rest.quotientAndRemainder(dividingBy: 60 * 10_000)
        return [(UInt32(degrees), 1), (UInt32(minutes), 1), (UInt32(seconds), 10_000)]
    }

    /// value/denominator, rounded, within what a RATIONAL holds.
    static func rational(_ value: Double, denominator: UInt32) -> (UInt32, UInt32) {
        (UInt32(min(Double(UInt32.max), max(0, (value * Double(denominator)).rounded()))), denominator)
    }

    /// A RATIONAL entry (numerator and denominator LONGs) in this structure's byte order.
    func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        var bytes: [UInt8] = []
        for (numerator, denominator) in values {
            for v in [numerator, denominator] {
                let big = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
                bytes += littleEndian ? big.reversed() : big
            }
        }
        return Entry(tag: tag, type: 5, count: UInt32(values.count), value: bytes)
    }
}
