import Foundation
@testable import Plumb
import PlumbTestSupport
import XCTest

/// Digital zoom before the tee, on a grid of known geometry (ffmpeg's drawgrid: a black
/// line 2 px wide every 40 px) shown through an `image:` camera; measured from the pixels
/// of stills that ffmpeg decodes.
final class ZoomTests: XCTestCase {
    private func grid() throws -> URL { try TestPictures(self).grid() }

    private func open() async throws -> CaptureSession {
        let session = try await CaptureSession.open(try CameraSource.resolve("image:" + (try grid()).path),
                                                    size: VideoSize(width: 640, height: 480), rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        return session
    }

    /// The centres of the vertical grid lines across a row of the still that crosses no
    /// horizontal line, in pixels (ffmpeg decodes it to grey).
    private func verticalLines(in jpeg: Data) throws -> [Double] {
        let dir = try temporaryDirectory(self)
        let still = dir.appendingPathComponent("still.jpg"), raw = dir.appendingPathComponent("still.gray")
        try jpeg.write(to: still)
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-y", "-i", still.path,
                                                                 "-f", "rawvideo", "-pix_fmt", "gray", raw.path])
        XCTAssertEqual(r.code, 0, r.stderr)
        let pixels = [UInt8](try Data(contentsOf: raw))
        let width = 640, height = pixels.count / width
        let row = try XCTUnwrap((5..<height).first { y in
            (0..<width).filter { pixels[y * width + $0] < 100 }.count < width / 4
        })
        var centres: [Double] = [], start: Int?
        for x in 0...width {
            let dark = x < width && pixels[row * width + x] < 100
            if dark, start == nil { start = x }
            if !dark, let s = start {
                centres.append(Double(s + x - 1) / 2)
                start = nil
            }
        }
        return centres
    }

    private func spacing(_ centres: [Double]) -> Double {
        let gaps = zip(centres, centres.dropFirst()).map { $1 - $0 }.sorted()
        return gaps.isEmpty ? 0 : gaps[gaps.count / 2]
    }

    /// At 2× the grid's cells are twice as large in a still, around the chosen centre; the
    /// session's caps do not change.
    func testAStillAtTwiceShowsCellsTwiceAsLargeAtTheCentre() async throws {
        let session = try await open()
        let one = try verticalLines(in: try await session.takePhoto().jpeg)
        XCTAssertEqual(spacing(one), 40, accuracy: 1.5, "\(one)")
        let teeCaps = await session.element(named: "tee")?.staticPad("sink")?.currentCaps?.description

        // Centre at x = 0.3: the crop is 320 wide from x = 32, so the line at 40 lands at 16..19.
        try await session.setZoom(2, centerX: 0.3, centerY: 0.5)
        try await session.waitForFrames(3)
        let zoomed = try await session.takePhoto()
        XCTAssertEqual(zoomed.facts.zoom, 2)
        // EXIF DigitalZoomRatio, as exiftool reads it.
        let still = try temporaryDirectory(self).appendingPathComponent("zoomed.jpg")
        try zoomed.jpeg.write(to: still)
        XCTAssertEqual(try IndependentReaders.exiftool("DigitalZoomRatio", still.path), 2)
        let two = try verticalLines(in: zoomed.jpeg)
        XCTAssertEqual(spacing(two), 80, accuracy: 2, "\(two)")
        let first = try XCTUnwrap(two.first)
        XCTAssertEqual(first.truncatingRemainder(dividingBy: 80), 17.5, accuracy: 3, "\(two)")
        let zoom = await session.zoom
        XCTAssertEqual(zoom.factor, 2)
        XCTAssertEqual(zoom.centerX, 0.3, accuracy: 1e-9)
        let teeCapsAfter = await session.element(named: "tee")?.staticPad("sink")?.currentCaps?.description
        XCTAssertEqual(teeCapsAfter, teeCaps)
        XCTAssertNotNil(teeCaps)

        // Out of range: refused, the zoom unchanged.
        do {
            try await session.setZoom(9)
            XCTFail("9× accepted")
        } catch CaptureError.invalidArgument(let why) {
            XCTAssertTrue(why.contains("1 to 8"), why)
        }
        try await session.setZoom(1)
        try await session.waitForFrames(3)
        let back = try await session.takePhoto().jpeg
        XCTAssertEqual(spacing(try verticalLines(in: back)), 40, accuracy: 1.5)
    }

    /// A ramp from 1× to 4× at 2 doublings per second takes one second of frames, every
    /// frame's factor between its neighbours'; a recording made meanwhile keeps its size
    /// and decodes without an error (ffmpeg), one frame per frame.
    func testARampIsSmoothAndTheRecordingKeepsItsCaps() async throws {
        let session = try await open()
        let movie = try temporaryDirectory(self).appendingPathComponent("zooming.mp4")
        let recording = try await session.startRecording(to: movie)
        try await session.waitForFrames(10)
        try await session.setZoom(4, rate: 2)
        try await session.waitForFrames(60, timeout: .seconds(60))
        let facts = try await recording.stop()
        XCTAssertGreaterThan(facts.frames, 60, "the recording went on through the ramp")
        let zoom = await session.zoom
        XCTAssertEqual(zoom.factor, 4)
        let log = await session.zoomLog
        guard let startIndex = log.lastIndex(where: { $0.factor == 1 }),
              let endIndex = log.firstIndex(where: { $0.factor == 4 }) else {
            return XCTFail("no ramp in \(log.map(\.factor))")
        }
        let ramp = log[startIndex...endIndex].map(\.factor)
        XCTAssertEqual(ramp, ramp.sorted(), "every frame between its neighbours")
        XCTAssertGreaterThan(ramp.count, 25, "\(ramp)")
        let seconds = Double(log[endIndex].pts - log[startIndex].pts) / 1e9
        print("zoom-ramp: 1x to 4x at 2 doublings/s in \(seconds) s over \(ramp.count) frames")
        XCTAssertEqual(seconds, 1, accuracy: 2.0 / 30 + 0.001)

        let probe = try ProbedVideo(movie)
        XCTAssertEqual(probe.width, 640)
        XCTAssertEqual(probe.height, 480)
        let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-i", movie.path, "-f", "null", "-"])
        XCTAssertEqual(decode.code, 0)
        XCTAssertEqual(decode.stderr, "", "ffmpeg found errors decoding the zooming recording")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(movie.path), probe.packets)
    }
}
