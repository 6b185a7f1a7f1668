import Foundation
@testable import PlumbLocation
@testable import PlumbMedia
import PlumbTestSupport
import XCTest

/// The GPS IFD Plumb writes into a still, read back by exiftool.
final class ExifGPSTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try temporaryDirectory(self)
    }

    /// A fix as gpsd reports one: south and west, below sea level, moving.
    private let fix = GeoLocation(latitude: -34.608_63, longitude: -58.382_3, altitude: -12.5, horizontalError: 17.1,
                                  speed: 1.389, track: 84.4,
                                  time: Date(timeIntervalSince1970: 1_552_566_664.25),  // 2019-03-14T12:31:04.25Z
                                  fixAge: 0.4)

    /// A JPEG from jifmux in the byte order given (exiftool rewrites it for "MM").
    private func jpeg(_ order: String) throws -> URL {
        let url = dir.appendingPathComponent("plain-\(order).jpg")
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc "
            + "! taginject tags=\"device-manufacturer=Plumb\" ! jifmux ! filesink location=\(url.path)")
        try runTool("exiftool", ["-q", "-overwrite_original", "-all=", url.path])
        // A GPS IFD already there (jifmux's, or another writer's) is replaced whole.
        try runTool("exiftool", ["-q", "-overwrite_original", "-ExifByteOrder=\(order)", "-Make=Plumb",
                                 "-GPSLatitude=1", "-GPSLatitudeRef=N", "-GPSImgDirection=10", url.path])
        return url
    }

    private func located(_ location: GeoLocation, order: String) throws -> URL {
        let out = dir.appendingPathComponent("gps-\(order).jpg")
        try JPEGExifWriter.editing(try Data(contentsOf: try jpeg(order))) { $0.setGPS(location) }.write(to: out)
        return out
    }

    func testEveryGPSTagReadsBackInBothByteOrders() throws {
        for order in ["II", "MM"] {
            let url = try located(fix, order: order)
            let tags = try LocationReaders.exifGPS(url.path)
            XCTAssertEqual(tags["GPSVersionID"], "2 3 0 0", order)
            XCTAssertEqual(tags["GPSLatitudeRef"], "S", order)
            XCTAssertEqual(tags["GPSLongitudeRef"], "W", order)
            XCTAssertEqual(Double(tags["GPSLatitude"] ?? "") ?? 0, 34.608_63, accuracy: 1e-7, "\(order): \(tags)")
            XCTAssertEqual(Double(tags["GPSLongitude"] ?? "") ?? 0, 58.382_3, accuracy: 1e-7, order)
            XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, -34.608_63, accuracy: 1e-7, order)
            XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, -58.382_3, accuracy: 1e-7, order)
            XCTAssertEqual(tags["GPSAltitudeRef"], "1", "below sea level")
            XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, 12.5, accuracy: 1e-3, order)
            XCTAssertEqual(tags["GPSDateStamp"], "2019:03:14", order)
            XCTAssertEqual(tags["GPSTimeStamp"], "12:31:04.25", order)
            XCTAssertEqual(Double(tags["GPSHPositioningError"] ?? "") ?? 0, 17.1, accuracy: 1e-2, order)
            XCTAssertEqual(tags["GPSSpeedRef"], "K", order)
            XCTAssertEqual(Double(tags["GPSSpeed"] ?? "") ?? 0, 5.0, accuracy: 0.01, "1.389 m/s in km/h")
            XCTAssertEqual(tags["GPSTrackRef"], "T", order)
            XCTAssertEqual(Double(tags["GPSTrack"] ?? "") ?? 0, 84.4, accuracy: 1e-2, order)
            XCTAssertEqual(tags["GPSMapDatum"], "WGS-84", order)
            XCTAssertNil(tags["GPSImgDirection"], "the old GPS IFD is replaced: \(tags)")
            let warnings = try runTool("exiftool", ["-validate", "-warning", "-a", "-s3", url.path])
            XCTAssertFalse(warnings.contains("GPS"), "\(order): \(warnings)")
            XCTAssertEqual(try runTool("exiftool", ["-s3", "-Make", url.path]).trimmingCharacters(in: .newlines), "Plumb")
            try IndependentReaders.gstLaunch("filesrc location=\(url.path) ! jpegdec ! fakesink")
        }
    }

    /// A fixed place, or a 2D fix: what is not known is not written.
    func testOnlyWhatIsKnownIsWritten() throws {
        let url = try located(GeoLocation(latitude: 48.858_4, longitude: 2.294_5), order: "II")
        let tags = try LocationReaders.exifGPS(url.path)
        XCTAssertEqual(tags["GPSLatitudeRef"], "N")
        XCTAssertEqual(tags["GPSLongitudeRef"], "E")
        XCTAssertEqual(Double(tags["GPSLatitude"] ?? "") ?? 0, 48.858_4, accuracy: 1e-7)
        XCTAssertEqual(Double(tags["GPSLongitude"] ?? "") ?? 0, 2.294_5, accuracy: 1e-7)
        for absent in ["GPSAltitude", "GPSAltitudeRef", "GPSTimeStamp", "GPSDateStamp", "GPSSpeed", "GPSTrack",
                       "GPSHPositioningError"] {
            XCTAssertNil(tags[absent], "\(absent) written without a value: \(tags)")
        }
    }

    func testDegreesMinutesAndSeconds() {
        let dms = ExifTIFF.degreesMinutesSeconds(-34.608_63)
        XCTAssertEqual(dms.map(\.0), [34, 36, 310_680])  // 34° 36' 31.068"
        XCTAssertEqual(dms.map(\.1), [1, 1, 10_000])
        XCTAssertEqual(ExifTIFF.degreesMinutesSeconds(180).map(\.0), [180, 0, 0])
        XCTAssertEqual(ExifTIFF.degreesMinutesSeconds(0.999_999_999).map(\.0), [1, 0, 0], "rounding carries into the degrees")
    }
}
