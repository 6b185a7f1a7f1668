import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbLocation
import PlumbTestSupport
import XCTest
import PlumbRotation

/// Stills from the running session, checked with exiftool.
final class PhotoOutputTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    /// "yyyy:MM:dd HH:mm:ss" in the local zone: how EXIF DateTimeOriginal reads.
    private func exifDate(_ iso: String) throws -> String {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try XCTUnwrap(parser.date(from: iso))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = .current
        f.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return f.string(from: date)
    }

    func testAPhotoCarriesItsFactsAsEXIF() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let where_ = GeoLocation(latitude: 48.8584, longitude: -2.2945, altitude: 35)
        let photo = try await session.takePhoto(quality: 85, location: where_)
        await session.close()
        let url = try write(photo.jpeg, named: "photo.jpg", in: dir)
        let tags = try exif(url)
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["Make"], "Plumb")
        XCTAssertEqual(tags["Model"], "Plumb test pattern")
        XCTAssertEqual(tags["ImageWidth"], "320")
        XCTAssertEqual(tags["ImageHeight"], "240")
        XCTAssertEqual(tags["Orientation"], "1")
        XCTAssertEqual(tags["DateTimeOriginal"], try exifDate(photo.facts.takenAt))
        XCTAssertEqual(Double(tags["GPSLatitude"] ?? "") ?? 0, 48.8584, accuracy: 1e-4)
        XCTAssertEqual(Double(tags["GPSLongitude"] ?? "") ?? 0, -2.2945, accuracy: 1e-4)
        XCTAssertEqual(tags["GPSLongitudeRef"], "W")
        XCTAssertEqual(Double(tags["GPSAltitude"] ?? "") ?? 0, 35, accuracy: 0.5)
        XCTAssertNil(tags["Error"])

        let facts = photo.facts
        XCTAssertEqual(facts.camera, "Plumb test pattern")
        XCTAssertEqual(facts.width, 320)
        XCTAssertEqual(facts.height, 240)
        XCTAssertEqual(facts.bytes, photo.jpeg.count)
        XCTAssertEqual(facts.orientation, 1)
        XCTAssertTrue(facts.gps)
        let json = try JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any]
        // clock_synchronized: the kernel's word on the wall clock when the photo was taken (adjtimex).
        let synced = WallClock.isSynchronized()
        XCTAssertEqual(Set(json?.keys.map { $0 } ?? []),
                       Set(["camera", "width", "height", "bytes", "taken_at", "orientation", "gps", "quality",
                            "latitude", "longitude", "altitude"] + (synced == nil ? [] : ["clock_synchronized"])))
        XCTAssertEqual(json?["clock_synchronized"] as? Bool, synced)
        XCTAssertEqual(json?["latitude"] as? Double, 48.8584)
        XCTAssertEqual(json?["longitude"] as? Double, -2.2945)
        XCTAssertEqual(json?["altitude"] as? Double, 35)
    }

    /// A fix from gpsd: its age, its GPS time and, on a wall clock that is not synchronised,
    /// a word saying so, in the facts; its time, error, speed and direction in the EXIF.
    func testAFixCarriesItsAgeAndTime() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let fix = GeoLocation(latitude: -34.608_63, longitude: -58.382_3, horizontalError: 17.1, speed: 1.389, track: 84.4,
                              time: Date(timeIntervalSince1970: 1_552_566_664), fixAge: 2.345_6,
                              clockUnsynchronized: true)
        let photo = try await session.takePhoto(location: fix)
        await session.close()
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(photo.facts.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["gps"] as? Bool, true)
        XCTAssertEqual(json["fix_age_s"] as? Double, 2.346)
        XCTAssertEqual(json["gps_time"] as? String, "2019-03-14T12:31:04.000Z")
        XCTAssertEqual(json["clock_unsynchronized"] as? Bool, true)
        XCTAssertNil(json["altitude"], "a 2D fix has no altitude")
        let tags = try LocationReaders.exifGPS(try write(photo.jpeg, named: "fix.jpg", in: dir).path)
        XCTAssertEqual(Double(tags["Composite:GPSLatitude"] ?? "") ?? 0, -34.608_63, accuracy: 1e-6)
        XCTAssertEqual(tags["GPSDateStamp"], "2019:03:14")
        XCTAssertEqual(tags["GPSTimeStamp"], "12:31:04")
        XCTAssertNotNil(tags["GPSHPositioningError"])
        XCTAssertNil(tags["GPSAltitude"])
    }

    func testWithoutALocationThereIsNoGPS() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let photo = try await session.takePhoto()
        await session.close()
        let tags = try exif(try write(photo.jpeg, named: "p.jpg", in: dir))
        XCTAssertNil(tags["GPSLatitude"])
        XCTAssertFalse(photo.facts.gps)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(photo.facts.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["gps"] as? Bool, false)
        for key in ["latitude", "longitude", "altitude", "fix_age_s", "gps_time", "clock_unsynchronized"] {
            XCTAssertNil(json[key], "\(key) without GPS")
        }
    }

    /// The orientation follows the session's angle; the pixels stay as the camera made them.
    func testOrientationFollowsTheRotationWithoutTurningPixels() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        for angle in RotationAngle.allCases {
            await session.setRotation(angle)
            let photo = try await session.takePhoto()
            let tags = try exif(try write(photo.jpeg, named: "r\(angle.degrees).jpg", in: dir))
            XCTAssertEqual(tags["Orientation"], String(angle.exifOrientation), "at \(angle)")
            XCTAssertEqual(tags["ImageWidth"], "320", "at \(angle)")
            XCTAssertEqual(tags["ImageHeight"], "240", "at \(angle)")
            XCTAssertEqual(photo.facts.orientation, angle.exifOrientation)
        }
        await session.close()
    }

    func testQualityChangesTheSize() async throws {
        // The SMPTE bars have detail for the quantizer to throw away.
        let session = try await CaptureSession.open(.testPattern(.smpte), size: qvga)
        let low = try await session.takePhoto(quality: 10)
        let high = try await session.takePhoto(quality: 98)
        await session.close()
        XCTAssertLessThan(low.jpeg.count * 3 / 2, high.jpeg.count, "quality 10: \(low.jpeg.count) bytes, 98: \(high.jpeg.count)")
        XCTAssertEqual(low.facts.quality, 10)
    }

    func testBadArgumentsAreRefused() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        for quality in [0, 101] {
            do {
                _ = try await session.takePhoto(quality: quality)
                XCTFail("quality \(quality) accepted")
            } catch CaptureError.invalidArgument(let text) {
                XCTAssertTrue(text.contains("quality"), text)
            }
        }
        do {
            _ = try await session.takePhoto(location: GeoLocation(latitude: 91, longitude: 0))
            XCTFail("latitude 91 accepted")
        } catch CaptureError.invalidArgument {
        }
        await session.close()
    }

    /// Concurrent requests: each gets its own JPEG with its own tags (never another
    /// request's), served in order or from the same frame.
    func testConcurrentRequestsAreNeverMixed() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let photos = try await withThrowingTaskGroup(of: (Int, Photo).self) { group in
            for i in 0..<12 {
                group.addTask {
                    (i, try await session.takePhoto(quality: 50 + i, location: GeoLocation(latitude: Double(i), longitude: Double(i) / 2)))
                }
            }
            var result: [(Int, Photo)] = []
            for try await p in group { result.append(p) }
            return result
        }
        await session.close()
        XCTAssertEqual(photos.count, 12)
        var urls: [URL] = []
        for (i, photo) in photos {
            XCTAssertEqual(photo.facts.quality, 50 + i)
            XCTAssertEqual(photo.facts.bytes, photo.jpeg.count)
            let url = try write(photo.jpeg, named: "c\(i).jpg", in: dir)
            urls.append(url)
            let tags = try exif(url)
            XCTAssertEqual(Double(tags["GPSLatitude"] ?? "") ?? -1, Double(i), accuracy: 1e-6, "photo \(i) has another's GPS")
            XCTAssertEqual(Double(tags["GPSLongitude"] ?? "") ?? -1, Double(i) / 2, accuracy: 1e-6)
        }
        // Photos from one frame share its timestamp; different frames differ.
        let byFrame = Dictionary(grouping: photos.map(\.1), by: \.frameNumber)
        for (_, group) in byFrame {
            XCTAssertEqual(Set(group.compactMap(\.frameTime)).count, 1)
        }
    }

    /// A photo during a recording: both come out whole, the recording uninterrupted.
    func testAPhotoDuringARecording() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("during.mp4"))
        _ = try await recording.firstFrameTime()
        let framesBefore = recording.progress.frames
        await eventually("9 more frames recorded (\(recording.progress.frames - framesBefore))") { recording.progress.frames >= framesBefore + 9 }
        let photo = try await session.takePhoto(location: GeoLocation(latitude: 1, longitude: 2))
        let framesAtPhoto = recording.progress.frames
        await eventually("9 more frames recorded after the photo") { recording.progress.frames >= framesAtPhoto + 9 }
        let facts = try await recording.stop()
        await session.close()

        let tags = try exif(try write(photo.jpeg, named: "during.jpg", in: dir))
        XCTAssertEqual(tags["FileType"], "JPEG")
        XCTAssertEqual(tags["ImageWidth"], "320")
        let video = try ProbedVideo(recording.url)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertEqual(video.packets, facts.frames)
        XCTAssertTrue(video.firstPacketIsKeyframe)
        // No frame missing around the photo: packets cover the duration at 30 fps.
        XCTAssertEqual(Double(video.packets), video.seconds * 30, accuracy: 1.5)
        XCTAssertGreaterThan(video.seconds, 0.5)
    }
}
