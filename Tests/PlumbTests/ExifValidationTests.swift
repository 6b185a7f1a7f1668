import Foundation
@testable import Plumb
@testable import PlumbLocation
import PlumbRotation
import PlumbTestSupport
import XCTest

/// Every still passes `exiftool -validate` without a warning (EXIF 2.32's required tags, in
/// every directory, offsets and order included): with and without GPS, zoomed or not, at
/// each orientation, encoded from raw frames or an MJPEG camera's own JPEG. The size EXIF
/// gives is the JPEG's own, as exiftool reads it from the frame header.
final class ExifValidationTests: XCTestCase {
    /// An odd size, so that a size from anywhere but the JPEG itself shows.
    private let size = VideoSize(width: 176, height: 144)
    private let fix = GeoLocation(latitude: -34.608_63, longitude: -58.382_3, altitude: 25.3, horizontalError: 17.1,
                                  speed: 1.389, track: 84.4, time: Date(timeIntervalSince1970: 1_552_566_664.25), fixAge: 0.4)

    /// exiftool's verdict on every tag of every directory (-a): "OK", or the count and the warnings.
    private func validate(_ url: URL) throws -> [String] {
        try runTool("exiftool", ["-validate", "-warning", "-a", "-s3", url.path]).split(separator: "\n").map(String.init)
    }

    /// The tags the validation is about, read by exiftool: the size from the frame header
    /// (File group) and from EXIF, and the rest by name.
    private func tags(_ url: URL) throws -> [String: String] {
        let text = try runTool("exiftool", ["-a", "-n", "-s", "-G1", "-File:ImageWidth", "-File:ImageHeight",
                                            "-ExifIFD:ExifImageWidth", "-ExifIFD:ExifImageHeight", "-Orientation",
                                            "-DigitalZoomRatio", "-GPSLatitude", "-ColorSpace", "-ComponentsConfiguration",
                                            url.path])
        var tags: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let kv = line.split(separator: ":", maxSplits: 1)
            guard kv.count == 2 else { continue }
            tags[kv[0].split(separator: " ").joined(separator: " ")] = kv[1].trimmingCharacters(in: .whitespaces)
        }
        return tags
    }

    private func check(_ photo: Photo, _ name: String, in dir: URL, zoom: Double, angle: RotationAngle,
                       gps: Bool) throws {
        let url = try write(photo.jpeg, named: "\(name).jpg", in: dir)
        XCTAssertEqual(try validate(url), ["OK"], name)
        let t = try tags(url)
        XCTAssertEqual(t["[File] ImageWidth"], "\(size.width)", "\(name): \(t)")
        XCTAssertEqual(t["[File] ImageHeight"], "\(size.height)", name)
        XCTAssertEqual(t["[ExifIFD] ExifImageWidth"], t["[File] ImageWidth"], name)
        XCTAssertEqual(t["[ExifIFD] ExifImageHeight"], t["[File] ImageHeight"], name)
        XCTAssertEqual(t["[ExifIFD] ColorSpace"], "1", name)
        XCTAssertEqual(t["[ExifIFD] ComponentsConfiguration"], "1 2 3 0", name)
        XCTAssertEqual(t["[IFD0] Orientation"], "\(angle.exifOrientation)", name)
        XCTAssertEqual(t["[ExifIFD] DigitalZoomRatio"], zoom == 1 ? nil : "\(Int(zoom))", name)
        XCTAssertEqual(t["[GPS] GPSLatitude"] != nil, gps, name)
    }

    func testEveryStillValidates() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: size)
        addTeardownBlock { await session.close() }
        for zoom in [1.0, 2.0] {
            // A jump takes effect at the next frame.
            try await session.setZoom(zoom)
            try await session.waitForFrames(2)
            for angle in RotationAngle.allCases {
                await session.setRotation(angle)
                for location in [nil, fix] {
                    let photo = try await session.takePhoto(location: location)
                    XCTAssertEqual(photo.facts.zoom ?? 1, zoom)
                    try check(photo, "zoom\(Int(zoom))-r\(angle.degrees)-gps\(location != nil)", in: dir,
                              zoom: zoom, angle: angle, gps: location != nil)
                }
            }
        }
    }

    /// An MJPEG camera's still is its own JPEG with the EXIF added: that passes as well.
    func testAnMJPEGCamerasStillValidates() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(try CameraSource.resolve("test:mjpeg"), size: size, rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        try await session.waitForFrames(2)
        for location in [nil, fix] {
            let photo = try await session.takePhoto(location: location)
            XCTAssertEqual(photo.facts.cameraJPEG, true)
            try check(photo, "mjpeg-gps\(location != nil)", in: dir, zoom: 1, angle: .degrees0, gps: location != nil)
        }
    }
}
