import Foundation
import PlumbTestSupport
import XCTest

/// `plumb scan`: the real binary on an `image:` camera showing QR codes made by qrencode
/// and linear codes made by zint.
final class ScanCommandTests: XCTestCase {
    /// A white 640x480 picture with a QR code of `text` at (x, y), turned by ffmpeg's
    /// `transpose` filter when given (2: a quarter turn counter-clockwise, as a sensor turned
    /// with the device sees the upright picture); the code's side in pixels.
    private func picture(_ text: String, x: Int = 64, y: Int = 96, transpose: Int? = nil) throws -> (URL, Int) {
        let pictures = try TestPictures(self)
        let code = try pictures.qr(text)
        return (try pictures.picture(codes: [(code, x: x, y: y)], transpose: transpose), code.width)
    }

    private func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// A code in view for two seconds is one JSON line with its data and bounds.
    func testACodeInViewIsOneJSONLine() throws {
        let (image, side) = try picture("parcel-0042")
        let r = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480", "--seconds", "2")
        XCTAssertEqual(r.code, 0, r.stderr)
        let found = try lines(r.stdout)
        XCTAssertEqual(found.count, 1, r.stdout)
        let d = try XCTUnwrap(found.first)
        XCTAssertEqual(d["symbology"] as? String, "qr")
        XCTAssertEqual(d["text"] as? String, "parcel-0042")
        XCTAssertGreaterThan(d["quality"] as? Int ?? 0, 0)
        let b = try XCTUnwrap(d["bounds"] as? [String: Double])
        XCTAssertEqual(b["x"] ?? -1, 64.0 / 640, accuracy: 0.02)
        XCTAssertEqual(b["y"] ?? -1, 96.0 / 480, accuracy: 0.02)
        XCTAssertEqual(b["width"] ?? -1, Double(side) / 640, accuracy: 0.02)
        XCTAssertEqual(b["height"] ?? -1, Double(side) / 480, accuracy: 0.02)
    }

    /// --once stops at the first detection; a region without the code and --types without
    /// its symbology report nothing (--once then fails after --seconds).
    func testOnceRegionAndTypes() throws {
        let (image, _) = try picture("door-pass-7")
        let once = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480", "--once", "--seconds", "30")
        XCTAssertEqual(once.code, 0, once.stderr)
        XCTAssertEqual(try lines(once.stdout).compactMap { $0["text"] as? String }, ["door-pass-7"])
        let elsewhere = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480",
                                               "--region", "0.5,0.5,0.5,0.5", "--once", "--seconds", "1.5")
        XCTAssertEqual(elsewhere.code, 1, elsewhere.stderr)
        XCTAssertEqual(elsewhere.stdout, "")
        XCTAssertTrue(elsewhere.stderr.contains("no code found"), elsewhere.stderr)
        let otherTypes = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480",
                                                "--types", "ean13,code128", "--seconds", "1.5")
        XCTAssertEqual(otherTypes.code, 0, otherTypes.stderr)
        XCTAssertEqual(otherTypes.stdout, "")
        // Said even without --once, with the frames really scanned.
        XCTAssertTrue(otherTypes.stderr.contains("no code found within 1.5 s ("), otherTypes.stderr)
        XCTAssertFalse(otherTypes.stderr.contains("(0 frames"), otherTypes.stderr)
    }

    /// Linear codes by zint: `--types` reports the chosen symbologies only, each once with
    /// its data and its type.
    func testTypesChooseAmongLinearCodes() throws {
        let pictures = try TestPictures(self)
        let image = try pictures.picture(codes: [(try pictures.barcode("EANX", "400638133393", height: 30), x: 20, y: 40),
                                                 (try pictures.barcode("CODE128", "shelf-17"), x: 20, y: 200),
                                                 (try pictures.barcode("CODE39", "BIN-9"), x: 340, y: 40)])
        let all = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480", "--seconds", "2")
        XCTAssertEqual(all.code, 0, all.stderr)
        let found = try lines(all.stdout).map { "\($0["symbology"] ?? "")=\($0["text"] ?? "")" }.sorted()
        XCTAssertEqual(found, ["code128=shelf-17", "code39=BIN-9", "ean13=4006381333931"], all.stdout)
        let chosen = try PlumbProcess.plumb("scan", "--camera", "image:" + image.path, "--size", "640x480",
                                            "--types", "code39,ean8", "--seconds", "2")
        XCTAssertEqual(chosen.code, 0, chosen.stderr)
        XCTAssertEqual(try lines(chosen.stdout).map { "\($0["symbology"] ?? "")=\($0["text"] ?? "")" }, ["code39=BIN-9"], chosen.stdout)
    }

    /// The device turned a quarter (a fixed sensor at 90°): the bounds are the upright picture's.
    func testBoundsAreThoseOfTheUprightPicture() throws {
        let (sensor, side) = try picture("turned", transpose: 2)
        let r = try PlumbProcess.plumb("scan", "--camera", "image:" + sensor.path, "--size", "480x640",
                                       "--accelerometer", "fixed:90", "--once", "--seconds", "30")
        XCTAssertEqual(r.code, 0, r.stderr)
        let b = try XCTUnwrap(try lines(r.stdout).first?["bounds"] as? [String: Double])
        XCTAssertEqual(b["x"] ?? -1, 64.0 / 640, accuracy: 0.02)
        XCTAssertEqual(b["y"] ?? -1, 96.0 / 480, accuracy: 0.02)
        XCTAssertEqual(b["width"] ?? -1, Double(side) / 640, accuracy: 0.02)
    }

    func testBadArgumentsNameWhatToFix() throws {
        let types = try PlumbProcess.plumb("scan", "--camera", "test", "--types", "qr,aztec")
        XCTAssertEqual(types.code, 2)
        XCTAssertTrue(types.stderr.contains("\"aztec\""), types.stderr)
        let region = try PlumbProcess.plumb("scan", "--camera", "test", "--region", "0.5,0.5,0.7,0.1")
        XCTAssertEqual(region.code, 2)
        XCTAssertTrue(region.stderr.contains("inside the picture"), region.stderr)
        let missing = try PlumbProcess.plumb("scan", "--camera", "image:/nonexistent/pass.png")
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/pass.png"), missing.stderr)
    }
}
