import Foundation
@testable import Plumb
@testable import PlumbLocation
import PlumbTestSupport
import XCTest

/// A real gpsd fed by gpsfake from the NMEA log in Tests/Fixtures/gps: stills and recordings
/// carry what exiftool and ffprobe read back; a stale fix is not used; gpsd restarted
/// mid-run is reconnected; without gpsd the captures come out, without GPS.
final class GPSFakeTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    private func provider(_ port: UInt16, maxFixAge: Duration = .seconds(300)) -> LocationProvider {
        let provider = LocationProvider(source: .gpsd(host: "127.0.0.1", port: port), maxFixAge: maxFixAge,
                                        backoff: Backoff(initial: .milliseconds(100), maximum: .milliseconds(500)))
        addTeardownBlock { provider.stop() }
        provider.start()
        return provider
    }

    private func waitForFix(_ provider: LocationProvider) async throws -> GeoLocation {
        await eventually("no fix from gpsd: \(provider.status())", timeout: .seconds(30)) { provider.current() != nil }
        return try XCTUnwrap(provider.current())
    }

    func testStillsAndRecordingsCarryTheFix() async throws {
        let gpsd = try GPSFake(self)
        let provider = provider(gpsd.port)
        let fix = try await waitForFix(provider)
        XCTAssertEqual(fix.latitude, GPSFake.latitude, accuracy: 1e-6)
        XCTAssertEqual(fix.longitude, GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(provider.status().gpsdRelease, GPSFake.release)

        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        // A report with a GPS time, as most are (one at the log's wrap has none).
        await eventually("provider.current()?.time != nil", timeout: .seconds(10)) { provider.current()?.time != nil }
        let photo = try await session.takePhoto(location: provider.current())
        var options = RecordingOptions()
        options.location = { provider.current() }
        let recording = try await session.startRecording(to: dir.appendingPathComponent("gps.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        try await session.waitForFrames(15)
        let movie = try await recording.stop()
        await session.close()

        let still = try write(photo.jpeg, named: "gps.jpg", in: dir)
        let tags = try LocationReaders.exifGPS(still.path)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, GPSFake.latitude, accuracy: 1e-6, "\(tags)")
        XCTAssertEqual(Double(tags["Composite:GPSLongitude"] ?? "") ?? 0, GPSFake.longitude, accuracy: 1e-6)
        XCTAssertEqual(tags["GPSLatitudeRef"], "S")
        XCTAssertEqual(tags["GPSLongitudeRef"], "W")
        XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, GPSFake.altitude, accuracy: 1e-3)
        XCTAssertEqual(tags["GPSAltitudeRef"], "0")
        XCTAssertEqual(tags["GPSDateStamp"], GPSFake.exifDate, "the fix's own (replayed, old) date")
        XCTAssertEqual(Double(tags["GPSSpeed"] ?? "") ?? 0, 2.7 * 1.852, accuracy: 0.01, "2.7 knots in km/h")
        XCTAssertEqual(Double(tags["GPSTrack"] ?? "") ?? 0, 84.4, accuracy: 0.01)
        XCTAssertNotNil(tags["GPSHPositioningError"])
        XCTAssertTrue(photo.facts.gps)
        XCTAssertEqual(try XCTUnwrap(photo.facts.latitude), GPSFake.latitude, accuracy: 1e-6)
        XCTAssertLessThan(try XCTUnwrap(photo.facts.fixAge), 300)
        XCTAssertEqual(photo.facts.gpsTime?.hasPrefix("2019-03-14T12:31:"), true, "\(photo.facts)")

        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(recording.url.path))
        XCTAssertEqual(coordinates[0], GPSFake.latitude, accuracy: 1e-5)
        XCTAssertEqual(coordinates[1], GPSFake.longitude, accuracy: 1e-5)
        XCTAssertEqual(coordinates[2], GPSFake.altitude, accuracy: 1e-3)
        XCTAssertEqual(try LocationReaders.ffprobeFormatTags(recording.url.path)["location"], "-34.60863-058.38230+25.300/")
        XCTAssertTrue(movie.gps)
        XCTAssertNotNil(movie.fixAge)
    }

    /// gpsfake asks gpsd for its receiver once and does not check the answer; the request is
    /// lost when gpsd's control socket is an old one left behind, or is there but not yet
    /// listened on, and then gpsd never reports a fix (a CI run's failure of the test above).
    /// Here a gpsd that starts after something else took and dropped the request stands for
    /// both: GPSFake hands gpsd the receiver again, and the fix comes.
    func testGPSDGetsItsReceiverWhenGPSFakesRequestIsLost() async throws {
        let home = try temporaryDirectory(self, "gpsd-home")
        let gpsdLate = home.appendingPathComponent("gpsd")
        try """
            #!/usr/bin/python3
            # gpsd, started after a listener on its control socket took gpsfake's request for
            # its receiver and dropped it.
            import os, socket, sys
            path = sys.argv[sys.argv.index("-F") + 1]
            s = socket.socket(socket.AF_UNIX)
            s.bind(path)
            s.listen(1)
            c, _ = s.accept()
            c.recv(256)
            c.close()
            s.close()
            os.execv("/usr/sbin/gpsd", ["/usr/sbin/gpsd"] + sys.argv[1:])

            """.write(to: gpsdLate, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gpsdLate.path)
        let gpsd = try GPSFake(self, gpsdHome: home)
        XCTAssertEqual(gpsd.devices()?.count, 1)
        let fix = try await waitForFix(provider(gpsd.port))
        XCTAssertEqual(fix.latitude, GPSFake.latitude, accuracy: 1e-6)
    }

    /// The log played once: when it ends gpsd reports nothing more, and the held fix, older
    /// than max-fix-age, is not used: the still comes out without GPS.
    func testAStaleFixIsNotUsed() async throws {
        let dir = try temporaryDirectory(self)
        let short = dir.appendingPathComponent("short.nmea")
        let lines = try String(contentsOf: GPSFake.log, encoding: .utf8).split(separator: "\r\n").prefix(3 + 3 * 8)
        try (lines.joined(separator: "\r\n") + "\r\n").write(to: short, atomically: true, encoding: .utf8)
        let gpsd = try GPSFake(self, log: short, cycle: 0.2, once: true)
        let provider = provider(gpsd.port, maxFixAge: .seconds(1))
        _ = try await waitForFix(provider)
        await eventually("the fix to go stale: \(provider.status())", timeout: .seconds(30)) { provider.current() == nil }
        let status = provider.status()
        XCTAssertEqual(status.fix?.mode, "3D", "the fix is held, just too old: \(status)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(status.fixAgeSeconds), 1)
        XCTAssertFalse(status.gps)

        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let photo = try await session.takePhoto(location: provider.current())
        await session.close()
        XCTAssertFalse(photo.facts.gps)
        XCTAssertNil(try LocationReaders.exifGPS(try write(photo.jpeg, named: "stale.jpg", in: dir).path)["GPSLatitude"])
    }

    /// gpsd stopped and started again on its port: the client is back on its own, with new fixes.
    func testGPSDRestartedMidRunIsReconnected() async throws {
        let first = try GPSFake(self)
        let provider = provider(first.port)
        _ = try await waitForFix(provider)
        first.stop()
        await eventually("\(provider.status())", timeout: .seconds(15)) { provider.status().state.hasPrefix("unavailable") }

        // Meanwhile a capture comes out at once (the held fix is young, so it still counts).
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let during = try await session.takePhoto(location: provider.current())
        XCTAssertTrue(during.facts.gps)

        let restarted = try GPSFake(self, port: first.port)
        await eventually("\(provider.status())", timeout: .seconds(20)) { provider.status().connections == 2 }
        let received = try XCTUnwrap(provider.client?.snapshot.received)
        await eventually("no fix after the restart", timeout: .seconds(20)) { (provider.client?.snapshot.received ?? received) > received }
        XCTAssertEqual(provider.status().state, "connected")
        XCTAssertNotNil(provider.current())
        let after = try await session.takePhoto(location: provider.current())
        await session.close()
        XCTAssertTrue(after.facts.gps)
        restarted.stop()
    }

    /// gpsd stopped for good, max-fix-age past: a still and a recording come out, without GPS.
    func testWithGPSDStoppedCapturesComeOutWithoutGPS() async throws {
        let gpsd = try GPSFake(self)
        let provider = provider(gpsd.port, maxFixAge: .milliseconds(500))
        _ = try await waitForFix(provider)
        gpsd.stop()
        await eventually("provider.current() == nil", timeout: .seconds(15)) { provider.current() == nil }

        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let photo = try await session.takePhoto(location: provider.current())
        var options = RecordingOptions()
        options.location = { provider.current() }
        let recording = try await session.startRecording(to: dir.appendingPathComponent("none.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        try await session.waitForFrames(10)
        let movie = try await recording.stop()
        await session.close()
        XCTAssertFalse(photo.facts.gps)
        XCTAssertFalse(movie.gps)
        XCTAssertNil(try LocationReaders.movieCoordinates(recording.url.path))
        XCTAssertGreaterThan(movie.frames, 0)
    }
}
