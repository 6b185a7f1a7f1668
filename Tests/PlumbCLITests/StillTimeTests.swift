import Foundation
import PlumbTestSupport
import XCTest

/// Every still path (`plumb photo`, the daemon's `POST /photo` and SIGUSR1 stills) writes
/// DateTimeOriginal as local time with the EXIF 2.31 offset tags, so that, read by exiftool
/// in a zone with a non-zero offset, local time plus offset is the instant the photo was taken.
final class StillTimeTests: XCTestCase {
    /// The offset of `zone` at `instant`, as EXIF writes it ("+05:30").
    private func offset(_ zone: String, at instant: Date) -> String {
        let seconds = TimeZone(identifier: zone)!.secondsFromGMT(for: instant)
        return String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
    }

    /// Checks the still's offset tags against `zone`; returns the instant its EXIF gives
    /// (DateTimeOriginal + SubSecTimeOriginal + OffsetTimeOriginal, as exiftool combines them).
    @discardableResult
    private func checkTimes(_ file: URL, zone: String, line: UInt = #line) throws -> Date {
        let json = try runTool("exiftool", ["-json", "-OffsetTime", "-OffsetTimeOriginal", "-OffsetTimeDigitized",
                                            "-DateTimeOriginal", "-SubSecDateTimeOriginal", file.path])
        let tags = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        let text = try XCTUnwrap(tags["SubSecDateTimeOriginal"] as? String, "\(zone): \(tags)", line: line)
        XCTAssertTrue(text.hasPrefix(tags["DateTimeOriginal"] as? String ?? "?"), "\(text) \(tags)", line: line)
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.dateFormat = "yyyy:MM:dd HH:mm:ss.SSSXXXXX"
        let instant = try XCTUnwrap(local.date(from: text), text, line: line)
        for name in ["OffsetTime", "OffsetTimeOriginal", "OffsetTimeDigitized"] {
            XCTAssertEqual(tags[name] as? String, offset(zone, at: instant), "\(zone): \(name)", line: line)
        }
        return instant
    }

    func testAPhotoCarriesItsUTCOffset() throws {
        let dir = try temporaryDirectory(self)
        for zone in ["Asia/Kolkata", "Europe/Berlin", "America/St_Johns"] {
            let file = dir.appendingPathComponent("\(zone.replacingOccurrences(of: "/", with: "-")).jpg")
            let r = try PlumbProcess.run(PlumbProcess.tool("env"), ["TZ=\(zone)", PlumbProcess.binary.path, "photo",
                                                                    "--camera", "test", "--size", "160x120", "-o", file.path])
            XCTAssertEqual(r.code, 0, r.stderr)
            let line = try XCTUnwrap(r.stdout.split(separator: "\n").last)
            let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let iso = ISO8601DateFormatter()
            iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let takenAt = try XCTUnwrap(iso.date(from: facts["taken_at"] as? String ?? ""), "\(facts)")
            let instant = try checkTimes(file, zone: zone)
            XCTAssertEqual(instant.timeIntervalSince1970, takenAt.timeIntervalSince1970, accuracy: 0.0005,
                           "\(zone): the EXIF time is the instant of taken_at")
        }
    }

    func testTheDaemonsStillsCarryTheirUTCOffset() throws {
        let zone = "Asia/Kolkata"
        let serve = try ServeProcess(self, environment: ["TZ": zone])
        let photo = serve.dir.appendingPathComponent("api.jpg")
        let before = Date()
        XCTAssertEqual(try serve.curl("POST", "/photo", output: photo).status, 200)
        let taken = try checkTimes(photo, zone: zone)
        XCTAssertEqual(taken.timeIntervalSince(before), 0, accuracy: 10, "the EXIF instant is when the photo was taken")

        kill(serve.pid, SIGUSR1)
        XCTAssertTrue(serve.waitForLog("still saved: "), serve.log)
        let still = try XCTUnwrap(ServeProcess.value(after: "still saved: ", in: serve.log))
        let saved = try checkTimes(URL(fileURLWithPath: still), zone: zone)
        XCTAssertEqual(saved.timeIntervalSince(before), 0, accuracy: 20)
        XCTAssertEqual(serve.stop().code, 0)
    }
}
