import Foundation
@testable import Plumb
import PlumbTestSupport
import XCTest

/// `image:FILE`: a still PNG or JPEG as a live 30 fps camera; a bad file is an error naming it.
final class ImageCameraTests: XCTestCase {
    /// A one-colour image made by ffmpeg (an independent writer) at `size`.
    private func makeImage(_ name: String, colour: String, size: String = "320x240") throws -> URL {
        let url = try temporaryDirectory(self).appendingPathComponent(name)
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                                 "color=\(colour):s=\(size)", "-frames:v", "1", url.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return url
    }

    /// The centre pixel of a JPEG as ffmpeg decodes it, RGB.
    private func centrePixel(of jpeg: Data) throws -> [UInt8] {
        let url = try temporaryDirectory(self).appendingPathComponent("still.jpg")
        try jpeg.write(to: url)
        let out = try temporaryDirectory(self).appendingPathComponent("centre.rgb")
        let size = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_entries", "stream=width,height",
                                                                      "-of", "csv=p=0:s=x", url.path])
        XCTAssertEqual(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "640x480")
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-i", url.path, "-vf",
                                                                 "crop=2:2", "-f", "rawvideo", "-pix_fmt", "rgb24", out.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        return Array(try Data(contentsOf: out).prefix(3))
    }

    private func checkLive(_ url: URL, red: Bool) async throws {
        let source = try CameraSource.resolve("image:" + url.path)
        XCTAssertEqual(source.identifier, "image:" + url.path)
        let session = try await CaptureSession.open(source, size: VideoSize(width: 640, height: 480), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let format = await session.format
        XCTAssertEqual(format.size, VideoSize(width: 640, height: 480))
        XCTAssertEqual(format.rate, FrameRate(30))
        // A live source: frames keep coming, not one frame and then nothing.
        try await session.waitForFrames(45, timeout: .seconds(30))
        let photo = try await session.takePhoto()
        let rgb = try centrePixel(of: photo.jpeg)
        if red {
            XCTAssertGreaterThan(rgb[0], 200, "\(rgb)"); XCTAssertLessThan(rgb[1], 60, "\(rgb)")
        } else {
            XCTAssertGreaterThan(rgb[2], 200, "\(rgb)"); XCTAssertLessThan(rgb[0], 60, "\(rgb)")
        }
        await session.close()
    }

    func testAPNGIsALiveCamera() async throws {
        try await checkLive(try makeImage("red.png", colour: "red"), red: true)
    }

    func testAJPEGIsALiveCamera() async throws {
        try await checkLive(try makeImage("blue.jpg", colour: "blue"), red: false)
    }

    /// The frames come at the camera's rate: 30 per second of the pipeline's running time,
    /// each on the 30 fps grid. Like a camera, the live image skips a slot when it is late
    /// (imagefreeze jumps ahead after a late wake-up: seen once in a CI run, 60 frames over
    /// 61 intervals), so a few missing slots are allowed, not another rate.
    func testFramesComeAtThirtyPerSecond() async throws {
        let url = try makeImage("red.png", colour: "red")
        let session = try await CaptureSession.open(try CameraSource.resolve("image:" + url.path),
                                                    size: VideoSize(width: 320, height: 240), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let folder = try temporaryDirectory(self)
        let movie = folder.appendingPathComponent("image.mp4")
        let recording = try await session.startRecording(to: movie)
        try await session.waitForFrames(60, timeout: .seconds(30))
        _ = try await recording.stop()
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-select_streams", "v:0",
                                                                  "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0", movie.path])
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "30/1", r.stderr)
        let times = try IndependentReaders.ffprobeFrameTimes(movie.path)
        XCTAssertGreaterThanOrEqual(times.count, 30)
        let slots = zip(times, times.dropFirst()).map { ($1 - $0) * 30 }
        XCTAssertEqual(slots.filter { abs($0 - $0.rounded()) > 0.01 || $0.rounded() < 1 }, [], "gaps off the 30 fps grid, in intervals")
        let skipped = slots.reduce(0) { $0 + Int($1.rounded()) - 1 }
        XCTAssertLessThanOrEqual(skipped, 3, "\(times.count) frames, \(skipped) slots skipped: not 30 per second")
    }

    func testAMissingFileIsNamed() throws {
        let path = try temporaryDirectory(self).appendingPathComponent("nothing-here.png").path
        XCTAssertThrowsError(try CameraSource.resolve("image:" + path)) { error in
            let e = error as! CameraError
            XCTAssertEqual(e.cause, .notFound)
            XCTAssertTrue(e.description.contains(path), e.description)
        }
    }

    func testAFileThatIsNotAnImageIsNamed() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("notes.png")
        try Data("not a picture at all".utf8).write(to: url)
        XCTAssertThrowsError(try CameraSource.resolve("image:" + url.path)) { error in
            let e = error as! CameraError
            XCTAssertEqual(e.cause, .notAnImage)
            XCTAssertTrue(e.description.contains(url.path), e.description)
            XCTAssertTrue(e.description.contains("not a PNG or JPEG"), e.description)
        }
        let folder = try temporaryDirectory(self)
        XCTAssertThrowsError(try CameraSource.resolve("image:" + folder.path)) { error in
            XCTAssertEqual((error as! CameraError).cause, .notAnImage)
            XCTAssertTrue("\(error)".contains(folder.path), "\(error)")
        }
        XCTAssertThrowsError(try CameraSource.resolve("image:")) { error in
            XCTAssertTrue("\(error)".contains("image:"), "\(error)")
        }
    }
}
