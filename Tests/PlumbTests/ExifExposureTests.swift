import Foundation
@testable import Plumb
import PlumbTestSupport
import XCTest

/// The exposure a camera reports, written into a still's EXIF by Plumb's writer and read
/// back by exiftool, still valid; the test camera reports none, so its stills carry none.
final class ExifExposureTests: XCTestCase {
    private static let tags = ["ExposureTime", "ExposureProgram", "ExposureMode", "WhiteBalance", "ISO", "SensitivityType"]

    /// exiftool's numeric values of the exposure tags (-n), by name.
    private func exposureTags(_ url: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        for line in try runTool("exiftool", ["-n", "-s"] + Self.tags.map { "-ExifIFD:\($0)" } + [url.path]).split(separator: "\n") {
            let kv = line.split(separator: ":", maxSplits: 1)
            if kv.count == 2 { found[kv[0].trimmingCharacters(in: .whitespaces)] = kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return found
    }

    private func validate(_ url: URL) throws -> [String] {
        try runTool("exiftool", ["-validate", "-warning", "-a", "-s3", url.path]).split(separator: "\n").map(String.init)
    }

    func testTheExposureIsWrittenReadBackByExiftoolAndValid() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 176, height: 144))
        addTeardownBlock { await session.close() }
        let photo = try await session.takePhoto()
        let plain = try write(photo.jpeg, named: "test-camera.jpg", in: dir)
        // The test camera has no controls: no tag, no key.
        XCTAssertEqual(try exposureTags(plain), [:])
        for key in ["exposure_time", "exposure_mode", "white_balance", "\"iso\"", "\"gain\""] {
            XCTAssertFalse(photo.facts.json.contains(key), photo.facts.json)
        }

        let cases: [(String, CameraControlReading, [String: String])] = [
            ("webcam-manual", try CameraControlReadingTests.manualWebcam(),
             ["ExposureTime": "0.0333", "ExposureProgram": "1", "ExposureMode": "1", "WhiteBalance": "1"]),
            ("sensor-manual", try CameraControlReadingTests.manualSensor(),
             ["ExposureTime": "0.01", "ExposureProgram": "1", "ExposureMode": "1", "ISO": "400", "SensitivityType": "0"]),
            // Aperture priority is auto exposure: no stale exposure time.
            ("webcam-auto", try CameraControlReadingTests.reading("uvc-c920-style"),
             ["ExposureProgram": "3", "ExposureMode": "0", "WhiteBalance": "0"]),
            ("vivid", try CameraControlReadingTests.reading("vivid"), [:]),
        ]
        for (name, reading, expected) in cases {
            let jpeg = try PhotoOutput.rewritingExif(photo.jpeg, takenAt: Date(), location: nil, controls: reading).get()
            let url = try write(jpeg, named: "\(name).jpg", in: dir)
            XCTAssertEqual(try exposureTags(url), expected, name)
            XCTAssertEqual(try validate(url), ["OK"], name)
        }
        // exiftool's own words for the manual webcam.
        let words = try runTool("exiftool", ["-s3", "-ExposureTime", "-ExposureMode", "-WhiteBalance",
                                             dir.appendingPathComponent("webcam-manual.jpg").path])
        XCTAssertEqual(words.split(separator: "\n"), ["1/30", "Manual", "Manual"])
    }

    func testThePhotosFactsCarryTheSameExposure() throws {
        var facts = PhotoFacts(camera: "c", width: 1, height: 1, bytes: 1, takenAt: "t", orientation: 1, gps: false, quality: 90)
        facts.set(try CameraControlReadingTests.manualSensor())
        XCTAssertEqual(facts.exposureTime, 0.01)
        XCTAssertEqual(facts.exposureMode, "manual")
        XCTAssertEqual(facts.iso, 400)
        XCTAssertNil(facts.whiteBalance)
        XCTAssertTrue(facts.json.contains(#""exposure_mode":"manual","exposure_time":0.01"#), facts.json)
        XCTAssertTrue(facts.json.contains(#""iso":400"#), facts.json)
        facts.set(try CameraControlReadingTests.reading("vivid"))
        XCTAssertEqual(facts.gain, 77)
        XCTAssertNil(facts.exposureTime)
        XCTAssertTrue(facts.json.contains(#""gain":77"#), facts.json)
    }
}
