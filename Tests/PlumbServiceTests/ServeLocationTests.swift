import Foundation
@testable import PlumbService
import PlumbTestSupport
import Soup
import XCTest
@testable import Plumb

/// `plumb serve` with `[location] source = gpsd:...` and a real gpsd fed by gpsfake: /status
/// shows the fix and its age; stills, clips and recordings carry it as exiftool reads it;
/// gpsd restarted mid-run is reconnected, and captures never wait meanwhile.
final class ServeLocationTests: XCTestCase {
    private func config(folder: URL, gpsd port: UInt16, maxFixAge: Double = 300) -> ServeConfig {
        var config = ServeDaemonTests.config(folder: folder)
        config.recording.continuous = false
        config.location.source = .gpsd(host: "127.0.0.1", port: port)
        config.location.maxFixAge = maxFixAge
        return config
    }

    private func start(_ config: ServeConfig, log: ServeDaemonTests.Lines) async throws -> (ServeDaemon, String) {
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: log.add)
        let addresses = try await daemon.start()
        addTeardownBlock { await daemon.shutdown() }
        return (daemon, addresses.http.httpURL)
    }

    private func location(_ base: String) async throws -> [String: Any] {
        let r = try await ServiceClient.curl([base + "/status"])
        XCTAssertEqual(r.status, 200, r.text)
        return try XCTUnwrap(try r.json()["location"] as? [String: Any], r.text)
    }

    /// /status's `location` once `condition` holds for it (the test fails, saying `what`, if it never does).
    private func waitForStatus(_ base: String, _ what: String, timeout: Duration = .seconds(30),
                               file: StaticString = #filePath, line: UInt = #line,
                               _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        try await eventually("\(what): \(last)", timeout: timeout, every: .milliseconds(100), file: file, line: line) {
            last = try await location(base)
            return condition(last)
        }
        return last
    }

    func testStatusStillsClipsAndRecordingsCarryTheFix() async throws {
        let gpsd = try GPSFake(self)
        let dir = try temporaryDirectory(self)
        let log = ServeDaemonTests.Lines()
        let (_, base) = try await start(config(folder: dir, gpsd: gpsd.port), log: log)
        let status = try await waitForStatus(base, "a fix") { $0["gps"] as? Bool == true }
        XCTAssertEqual(status["source"] as? String, "gpsd:127.0.0.1:\(gpsd.port)")
        XCTAssertEqual(status["state"] as? String, "connected")
        XCTAssertEqual(status["gpsd_release"] as? String, GPSFake.release)
        XCTAssertEqual(status["max_fix_age_s"] as? Double, 300)
        XCTAssertEqual(status["skipped_lines"] as? Int, 0)
        XCTAssertLessThan(try XCTUnwrap(status["fix_age_s"] as? Double), 300)
        let fix = try XCTUnwrap(status["fix"] as? [String: Any])
        XCTAssertEqual(fix["mode"] as? String, "3D")
        XCTAssertEqual(try XCTUnwrap(fix["latitude"] as? Double), GPSFake.latitude, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(fix["longitude"] as? Double), GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(Set(fix.keys), ["mode", "latitude", "longitude", "altitude", "horizontal_error_m", "speed",
                                       "track", "time"])
        XCTAssertEqual(Set(status.keys), ["source", "state", "gps", "fix", "fix_age_s", "max_fix_age_s", "gpsd_release",
                                          "skipped_lines", "connections", "clock_synchronized"])
        XCTAssertTrue(log.contains("location: gpsd at 127.0.0.1:\(gpsd.port), fixes up to 300 s old"), "\(log.all)")
        XCTAssertTrue(log.contains("location: connected to gpsd at 127.0.0.1:\(gpsd.port) (gpsd \(GPSFake.release))"), "\(log.all)")

        // A still: the fix in its EXIF and in its facts header.
        let still = dir.appendingPathComponent("still.jpg").path
        let photo = try await ServiceClient.curl(["-X", "POST", base + "/photo"], output: still)
        XCTAssertEqual(photo.status, 200)
        let tags = try LocationReaders.exifGPS(still)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "\(tags)")
        XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, GPSFake.altitude, accuracy: 1e-3)
        let photoFacts = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(try XCTUnwrap(photo.headers["x-plumb-photo"]).utf8)) as? [String: Any])
        XCTAssertEqual(photoFacts["gps"] as? Bool, true)
        XCTAssertNotNil(photoFacts["fix_age_s"])

        // A clip and a recording: the place they started, in udta/©xyz.
        let clip = dir.appendingPathComponent("clip.mp4").path
        let clipped = try await ServiceClient.curl(["-X", "POST", base + "/clip?seconds=1"], output: clip)
        XCTAssertEqual(clipped.status, 200)
        let clipCoordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(clip))
        XCTAssertEqual(clipCoordinates[0], GPSFake.latitude, accuracy: 1e-5)
        XCTAssertEqual(clipCoordinates[1], GPSFake.longitude, accuracy: 1e-5)
        XCTAssertTrue(clipped.headers["x-plumb-clip"]?.contains(#""gps":true"#) == true, "\(clipped.headers)")

        let started = try await ServiceClient.curl(["-X", "POST", base + "/recording/start"])
        XCTAssertEqual(started.status, 200, started.text)
        try await Task.sleep(for: .seconds(1))  // a recording of a known second, whose facts carry the fix
        let stopped = try await ServiceClient.curl(["-X", "POST", base + "/recording/stop"])
        XCTAssertEqual(stopped.status, 200, stopped.text)
        let facts = try XCTUnwrap(try stopped.json()["facts"] as? [String: Any], stopped.text)
        XCTAssertEqual(facts["gps"] as? Bool, true, stopped.text)
        let file = try XCTUnwrap(facts["file"] as? String)
        let path = file.hasPrefix("/") ? file : dir.appendingPathComponent(file).path
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(path), path)
        XCTAssertEqual(coordinates[0], GPSFake.latitude, accuracy: 1e-5)
        XCTAssertEqual(coordinates[2], GPSFake.altitude, accuracy: 1e-3)
        XCTAssertEqual(try LocationReaders.ffprobeFormatTags(path)["location"], "-34.60863-058.38230+25.300/")
    }

    /// gpsd stopped mid-run: /status says so, stills come out at once (with the young fix,
    /// then without once it is older than max-fix-age); gpsd back on its port: reconnected.
    func testGPSDRestartedMidRunIsReconnected() async throws {
        let first = try GPSFake(self)
        let dir = try temporaryDirectory(self)
        let log = ServeDaemonTests.Lines()
        let (_, base) = try await start(config(folder: dir, gpsd: first.port, maxFixAge: 2), log: log)
        _ = try await waitForStatus(base, "a fix") { $0["gps"] as? Bool == true }
        first.stop()
        let away = try await waitForStatus(base, "gpsd seen gone") { ($0["state"] as? String)?.hasPrefix("unavailable") == true }
        XCTAssertEqual(away["connections"] as? Int, 1)
        _ = try await waitForStatus(base, "the fix to age past max-fix-age") { $0["gps"] as? Bool == false }
        let still = dir.appendingPathComponent("without.jpg").path
        let photo = try await ServiceClient.curl(["-X", "POST", base + "/photo"], output: still)
        XCTAssertEqual(photo.status, 200)
        XCTAssertTrue(photo.headers["x-plumb-photo"]?.contains(#""gps":false"#) == true, "\(photo.headers)")
        XCTAssertNil(try LocationReaders.exifGPS(still)["GPSLatitude"])
        XCTAssertEqual(log.all.filter { $0.contains("go without GPS") }.count, 1, "the outage is said once: \(log.all)")

        let again = try GPSFake(self, port: first.port)
        let back = try await waitForStatus(base, "gpsd reconnected with a fix") {
            $0["connections"] as? Int == 2 && $0["gps"] as? Bool == true
        }
        XCTAssertEqual(back["state"] as? String, "connected")
        let with = dir.appendingPathComponent("with.jpg").path
        let after = try await ServiceClient.curl(["-X", "POST", base + "/photo"], output: with)
        XCTAssertEqual(after.status, 200)
        XCTAssertEqual(Double(try LocationReaders.exifGPS(with)["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude,
                       accuracy: 1e-6)
        again.stop()
    }

    /// `[location] source = off` (the default): the key is there, saying so.
    func testStatusWithoutALocation() async throws {
        let dir = try temporaryDirectory(self)
        var config = config(folder: dir, gpsd: 1)
        config.location = ServeConfig.Location()
        let (_, base) = try await start(config, log: ServeDaemonTests.Lines())
        let status = try await location(base)
        XCTAssertEqual(status["source"] as? String, "off")
        XCTAssertEqual(status["state"] as? String, "off")
        XCTAssertEqual(status["gps"] as? Bool, false)
        XCTAssertTrue(status["fix"] is NSNull)
        XCTAssertTrue(status["fix_age_s"] is NSNull)
    }
}
