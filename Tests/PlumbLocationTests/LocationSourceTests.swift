import Foundation
import PlumbLocation
import XCTest

/// `--location` and `[location] source`: the forms accepted, read back, and what errors say.
final class LocationSourceTests: XCTestCase {
    func testTheFormsAccepted() throws {
        XCTAssertEqual(try LocationSource(parsing: "off"), .off)
        XCTAssertEqual(try LocationSource(parsing: "gpsd"), .gpsd(host: "127.0.0.1", port: 2947))
        XCTAssertEqual(try LocationSource(parsing: "gpsd:gps.local:2948"), .gpsd(host: "gps.local", port: 2948))
        XCTAssertEqual(try LocationSource(parsing: "gpsd:[::1]:2947"), .gpsd(host: "::1", port: 2947))
        XCTAssertEqual(try LocationSource(parsing: "fixed:48.8584,2.2945"),
                       .fixed(GeoLocation(latitude: 48.8584, longitude: 2.2945)))
        XCTAssertEqual(try LocationSource(parsing: "fixed:-34.6, -58.38, 25"),
                       .fixed(GeoLocation(latitude: -34.6, longitude: -58.38, altitude: 25)))
    }

    func testTheTextFormReadsBack() throws {
        for text in ["off", "gpsd", "gpsd:10.0.0.2:2947", "gpsd:[::1]:3000", "fixed:48.8584,2.2945", "fixed:-34.6,-58.38,25.5"] {
            XCTAssertEqual(try LocationSource(parsing: text).description, text)
            XCTAssertEqual(try LocationSource(parsing: try LocationSource(parsing: text).description),
                           try LocationSource(parsing: text))
        }
    }

    func testErrorsSayWhatToWrite() {
        let cases = [
            ("gps", "expected gpsd, gpsd:HOST:PORT"), ("gpsd:", "expected gpsd:HOST:PORT"),
            ("gpsd:host", "expected gpsd:HOST:PORT"), ("gpsd::2947", "host is missing"),
            ("gpsd:host:0", "port \"0\""), ("gpsd:host:99999", "port \"99999\""), ("gpsd:host:x", "port \"x\""),
            ("fixed:", "expected LAT,LON"), ("fixed:1", "expected LAT,LON"), ("fixed:1,2,3,4", "expected LAT,LON"),
            ("fixed:91,0", "latitude 91 is out of range"), ("fixed:0,-181", "longitude -181 is out of range"),
            ("fixed:nan,0", "expected LAT,LON"), ("Off", "expected gpsd"),
        ]
        for (text, fragment) in cases {
            XCTAssertThrowsError(try LocationSource(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(text): \(error)")
                XCTAssertTrue("\(error)".hasPrefix(text + ":"), "\(text): \(error)")
            }
        }
    }
}
