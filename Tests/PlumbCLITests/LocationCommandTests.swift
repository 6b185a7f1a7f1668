import Foundation
import PlumbTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `plumb photo|record --location`: gpsd's fix (a real gpsd fed by gpsfake) in the files as
/// exiftool and ffprobe read them; without gpsd, or with one that never answers, the
/// captures come out at once, without GPS, and say why once.
final class LocationCommandTests: XCTestCase {
    private func facts(_ text: String) throws -> [String: Any] {
        let line = try XCTUnwrap(text.split(separator: "\n").last, "no facts in \(text)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }

    func testAPhotoAndARecordingCarryGPSDsFix() throws {
        // Quick reports (one every 60 ms): a recording's file takes the fix held when the camera
        // has opened, which it does in a moment here.
        let gpsd = try GPSFake(self, cycle: 0.02)
        let dir = try temporaryDirectory(self)
        let still = dir.appendingPathComponent("gps.jpg")
        // The settle time lets gpsd report (a receiver reports once a second).
        let photo = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "--settle", "1500",
                                           "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", still.path)
        XCTAssertEqual(photo.code, 0, photo.stderr)
        XCTAssertFalse(photo.stderr.contains("warning"), photo.stderr)
        let photoFacts = try facts(photo.stdout)
        XCTAssertEqual(photoFacts["gps"] as? Bool, true, photo.stdout)
        XCTAssertEqual(try XCTUnwrap(photoFacts["latitude"] as? Double), GPSFake.latitude, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(photoFacts["longitude"] as? Double), GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(photoFacts["altitude"] as? Double), GPSFake.altitude, accuracy: 1e-6)
        XCTAssertLessThan(try XCTUnwrap(photoFacts["fix_age_s"] as? Double), 300)
        let tags = try LocationReaders.exifGPS(still.path)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "\(tags)")
        XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, GPSFake.altitude, accuracy: 1e-3)

        let movie = dir.appendingPathComponent("gps.mp4")
        let record = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                            "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", movie.path, timeout: 90)
        XCTAssertEqual(record.code, 0, record.stderr)
        XCTAssertFalse(record.stderr.contains("warning"), record.stderr)
        XCTAssertEqual(try facts(record.stdout)["gps"] as? Bool, true, record.stdout)
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(movie.path))
        XCTAssertEqual(coordinates[0], GPSFake.latitude, accuracy: 1e-5)
        XCTAssertEqual(coordinates[1], GPSFake.longitude, accuracy: 1e-5)
        XCTAssertEqual(coordinates[2], GPSFake.altitude, accuracy: 1e-3)
        XCTAssertEqual(try LocationReaders.ffprobeFormatTags(movie.path)["location"], "-34.60863-058.38230+25.300/")
    }

    /// gpsd reports rarely (one NMEA sentence every 2 s, a fix every 6 s: far slower than a
    /// still of the test pattern, which has no settle time), but it holds a fix: every
    /// photo carries it, asked for with `?POLL;` rather than waited for in gpsd's next
    /// report. (Before the poll, a photo carried it only when a report happened to fall
    /// within its half second.) A recording too.
    func testEveryCaptureCarriesTheFixGPSDHoldsWhenItsReportsAreRare() async throws {
        let gpsd = try GPSFake(self, cycle: 2)
        await eventually("gpsd never held a 3D fix", timeout: .seconds(60)) { gpsd.heldFixMode() == 3 }
        let dir = try temporaryDirectory(self)
        for run in 1...4 {
            let still = dir.appendingPathComponent("rare-\(run).jpg")
            let photo = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120",
                                               "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", still.path)
            XCTAssertEqual(photo.code, 0, photo.stderr)
            XCTAssertFalse(photo.stderr.contains("warning"), "run \(run): \(photo.stderr)")
            XCTAssertEqual(try facts(photo.stdout)["gps"] as? Bool, true, "run \(run): \(photo.stdout)")
            let tags = try LocationReaders.exifGPS(still.path)
            XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "run \(run): \(tags)")
            XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, GPSFake.longitude, accuracy: 1e-6, "run \(run)")
            XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, GPSFake.altitude, accuracy: 1e-3, "run \(run)")
        }
        let movie = dir.appendingPathComponent("rare.mp4")
        let record = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "160x120",
                                            "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", movie.path, timeout: 90)
        XCTAssertEqual(record.code, 0, record.stderr)
        XCTAssertEqual(try facts(record.stdout)["gps"] as? Bool, true, record.stderr)
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(movie.path))
        XCTAssertEqual(coordinates[0], GPSFake.latitude, accuracy: 1e-5)
    }

    /// gpsd as Debian runs it (no -n) opens its receiver only when a client watches, and
    /// answers the poll that follows before the receiver has reported. A photo without a
    /// settle time (the test pattern's) waits for the receiver's first report and carries
    /// the fix; it used to take gpsd's empty answer and go without GPS. gpsd keeps the
    /// receiver open a while after the last client leaves: the first photo is the one.
    func testAPhotoCarriesTheFixOfAGPSDThatOpensItsReceiverOnTheWatch() throws {
        let gpsd = try GPSFake(self, nowait: false)
        let dir = try temporaryDirectory(self)
        let still = dir.appendingPathComponent("on-watch.jpg")
        let photo = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120",
                                           "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", still.path)
        XCTAssertEqual(photo.code, 0, photo.stderr)
        XCTAssertFalse(photo.stderr.contains("warning"), photo.stderr)
        XCTAssertEqual(try facts(photo.stdout)["gps"] as? Bool, true, photo.stderr)
        let tags = try LocationReaders.exifGPS(still.path)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "\(tags)")
        XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, GPSFake.longitude, accuracy: 1e-6)
    }

    /// gpsd runs, its receiver reports, but without a position (NMEA status V, quality 0):
    /// the still comes out without GPS and the warning says that, in gpsd's terms.
    func testWithoutAFixTheWarningSaysWhy() async throws {
        let dir = try temporaryDirectory(self)
        let log = dir.appendingPathComponent("no-fix.nmea")
        try """
            $GPGGA,123100.00,,,,,0,00,99.9,,M,,M,,*6A\r
            $GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9*09\r
            $GPRMC,123100.00,V,,,,,,,140319,,,N*7B\r

            """.write(to: log, atomically: true, encoding: .utf8)
        let gpsd = try GPSFake(self, log: log, cycle: 0.5)
        await eventually("gpsd never reported its receiver without a fix", timeout: .seconds(60)) { gpsd.heldFixMode() == 1 }
        let still = dir.appendingPathComponent("no-fix.jpg")
        let photo = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120",
                                           "--location", "gpsd:127.0.0.1:\(gpsd.port)", "-o", still.path)
        XCTAssertEqual(photo.code, 0, photo.stderr)
        XCTAssertEqual(try facts(photo.stdout)["gps"] as? Bool, false)
        XCTAssertNil(try LocationReaders.exifGPS(still.path)["GPSLatitude"])
        XCTAssertEqual(photo.stderr.split(separator: "\n").filter { $0.contains("warning") },
                       ["plumb photo: warning: the photo has no GPS: gpsd reports no fix: its receiver does not know where it is (mode 1)"],
                       photo.stderr)
    }

    /// `--gps` is `--location fixed:`; both write the same place, a recording too.
    func testFixedLocations() throws {
        let dir = try temporaryDirectory(self)
        for (name, args) in [("gps", ["--gps", "48.8584,2.2945,35"]), ("fixed", ["--location", "fixed:48.8584,2.2945,35"])] {
            let file = dir.appendingPathComponent("\(name).jpg")
            let r = try PlumbProcess.run(PlumbProcess.binary, ["photo", "--camera", "test", "--size", "160x120",
                                                               "-o", file.path] + args)
            XCTAssertEqual(r.code, 0, r.stderr)
            let facts = try facts(r.stdout)
            XCTAssertEqual(facts["latitude"] as? Double, 48.8584, name)
            XCTAssertNil(facts["fix_age_s"], "a fixed place has no fix age")
            let tags = try LocationReaders.exifGPS(file.path)
            XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, 48.8584, accuracy: 1e-6, name)
            XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, 35, accuracy: 1e-3, name)
        }
        let movie = dir.appendingPathComponent("fixed.mp4")
        let r = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "160x120",
                                       "--gps", "-33.8568,151.2153", "-o", movie.path, timeout: 90)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try facts(r.stdout)["gps"] as? Bool, true)
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(movie.path))
        XCTAssertEqual(coordinates, [-33.8568, 151.2153])
        let off = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "--location", "off",
                                         "-o", dir.appendingPathComponent("off.jpg").path)
        XCTAssertEqual(off.code, 0, off.stderr)
        XCTAssertEqual(try facts(off.stdout)["gps"] as? Bool, false)
    }

    /// gpsd stopped: the still and the recording come out, without GPS; the outage is said
    /// once however often the client retried, and so is why the capture has no GPS.
    func testWithGPSDStoppedCapturesComeOutWithoutGPS() throws {
        let port = try ReservedPort(self).port  // held, never listening: refused
        let dir = try temporaryDirectory(self)
        let still = dir.appendingPathComponent("none.jpg")
        let photo = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "320x240", "--settle", "2500",
                                           "--location", "gpsd:127.0.0.1:\(port)", "-o", still.path)
        XCTAssertEqual(photo.code, 0, photo.stderr)
        XCTAssertEqual(try facts(photo.stdout)["gps"] as? Bool, false)
        XCTAssertNil(try LocationReaders.exifGPS(still.path)["GPSLatitude"])
        let outages = photo.stderr.split(separator: "\n").filter { $0.contains("gpsd at 127.0.0.1:\(port)") }
        XCTAssertEqual(outages.count, 1, photo.stderr)
        XCTAssertTrue(outages.first?.contains("refused") == true, photo.stderr)
        XCTAssertTrue(photo.stderr.contains("the photo has no GPS: gpsd is unavailable"), photo.stderr)

        let movie = dir.appendingPathComponent("none.mp4")
        let record = try PlumbProcess.plumb("record", "--seconds", "1", "--camera", "test", "--size", "320x240",
                                            "--location", "gpsd:127.0.0.1:\(port)", "-o", movie.path, timeout: 90)
        XCTAssertEqual(record.code, 0, record.stderr)
        let facts = try facts(record.stdout)
        XCTAssertEqual(facts["gps"] as? Bool, false)
        XCTAssertEqual(facts["frames"] as? Int, 30)
        XCTAssertNil(try LocationReaders.movieCoordinates(movie.path))
        XCTAssertTrue(record.stderr.contains("the recording has no GPS: gpsd is unavailable"), record.stderr)
    }

    /// Something on gpsd's port that accepts and never answers: the still waits for it no
    /// longer than its bound (a capture that waited for it would hang here until the guard).
    func testAGPSDThatNeverAnswersDelaysNothing() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        XCTAssertEqual(listen(fd, 4), 0)  // The kernel completes connections; nobody accepts them.
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = UInt16(bigEndian: addr.sin_port)
        let dir = try temporaryDirectory(self)
        let r = try PlumbProcess.plumb("photo", "--camera", "test", "--size", "160x120", "--location",
                                       "gpsd:127.0.0.1:\(port)", "-o", dir.appendingPathComponent("silent.jpg").path,
                                       timeout: 30)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertEqual(try facts(r.stdout)["gps"] as? Bool, false)
        XCTAssertTrue(r.stderr.contains("the photo has no GPS: gpsd has not answered yet (waited 5 s)"), r.stderr)
    }

    /// `plumb serve` with `[location] source = gpsd:...`: it says where the GPS comes from, and
    /// /status and /photo carry the fix (the daemon holds it all the time).
    func testServeTakesTheLocationGroup() throws {
        let gpsd = try GPSFake(self)
        let serve = try ServeProcess(self, ["location": ["source": "gpsd:127.0.0.1:\(gpsd.port)", "max-fix-age": "60"]])
        XCTAssertTrue(serve.waitForLog("location: gpsd at 127.0.0.1:\(gpsd.port), fixes up to 60 s old"), serve.log)
        XCTAssertTrue(serve.waitForLog("location: connected to gpsd at 127.0.0.1:\(gpsd.port)"), serve.log)
        var location: [String: Any] = [:]
        eventually("a GPS fix in /status: \(location)", timeout: .seconds(30), every: .milliseconds(100)) {
            location = ((try? serve.curl("GET", "/status").json())?["location"] as? [String: Any]) ?? [:]
            return location["gps"] as? Bool == true
        }
        XCTAssertEqual(location["gps"] as? Bool, true, "\(location)")
        XCTAssertEqual(location["max_fix_age_s"] as? Double, 60)
        let still = serve.dir.appendingPathComponent("still.jpg")
        let photo = try serve.curl("POST", "/photo", output: still)
        XCTAssertEqual(photo.status, 200, photo.text)
        XCTAssertTrue(photo.headers["x-plumb-photo"]?.contains(#""gps":true"#) == true, "\(photo.headers)")
        let tags = try LocationReaders.exifGPS(still.path)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "\(tags)")
        XCTAssertEqual(serve.stop().code, 0)
    }
}
