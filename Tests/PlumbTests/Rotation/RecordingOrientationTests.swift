import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest
import PlumbRotation

/// Recordings and stills through the session at each angle, read by ffprobe and exiftool.
final class RecordingOrientationTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    /// The top-level boxes of an MP4, read here rather than by Plumb's parser.
    private func topLevelBoxes(_ url: URL) throws -> [String] {
        let data = try Data(contentsOf: url)
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count {
                size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = data.count - offset
            }
            guard size >= 8 else { break }
            boxes.append(type)
            offset += size
        }
        return boxes
    }

    private func options(_ container: RecordingContainer) -> RecordingOptions {
        var options = RecordingOptions()
        options.container = container
        options.fragmentDuration = .milliseconds(200)  // several fragments in a short file
        return options
    }

    /// At each of the four angles, a recording in each container: the track matrix says the
    /// angle to ffprobe (counter-clockwise: 90 -> -90, 270 -> 90) and to exiftool; the frames
    /// keep the camera's size; every frame is there; the layout is the one asked for.
    func testEachAngleInEachContainerReadsRightInFfprobeAndExiftool() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        for angle in RotationAngle.allCases {
            await session.setRotation(angle)
            var recordings: [(RecordingContainer, Recording)] = []
            for container in RecordingContainer.allCases {
                let url = dir.appendingPathComponent("\(container)-\(angle.degrees).mp4")
                recordings.append((container, try await session.startRecording(to: url, options: options(container))))
            }
            for (_, r) in recordings { _ = try await r.firstFrameTime() }
            for (container, r) in recordings {
                await eventually("10 frames of \(container) at \(angle)") { r.progress.frames >= 10 }
            }
            for (container, recording) in recordings {
                let facts = try await recording.stop()
                let path = recording.url.path
                let label = "\(container) at \(angle)"
                XCTAssertEqual(facts.orientation, angle.degrees, label)
                XCTAssertNil(facts.burnedIn)
                let ffprobe = try IndependentReaders.ffprobeRotation(path)
                XCTAssertTrue(angle.ffprobeRotations.contains(ffprobe), "\(label): ffprobe says \(ffprobe)")
                XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), angle, label)
                XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), angle.degrees, "exiftool, \(label)")
                let probe = try XCTUnwrap(Probe.read(recording.url), label)
                XCTAssertEqual(probe.width, 320, "pixels are not turned, \(label)")
                XCTAssertEqual(probe.height, 240, label)
                XCTAssertEqual(probe.frames, facts.frames, "frames decoded, \(label)")
                XCTAssertGreaterThan(facts.frames, 8, label)
                let boxes = try topLevelBoxes(recording.url)
                switch container {
                case .plain:
                    XCTAssertFalse(boxes.contains("moof"), "\(label): \(boxes)")
                    let mdat = try XCTUnwrap(boxes.firstIndex(of: "mdat")), moov = try XCTUnwrap(boxes.firstIndex(of: "moov"))
                    XCTAssertLessThan(mdat, moov, "plain: the index comes last, \(boxes)")
                case .fragmented:
                    XCTAssertGreaterThan(boxes.filter { $0 == "moof" }.count, 1, "\(label): \(boxes)")
                case .fragmentedThenFinalized:
                    XCTAssertFalse(boxes.contains("moof"), "finalized into a normal MP4, \(label): \(boxes)")
                    XCTAssertTrue(boxes.contains("moov"), "\(label): \(boxes)")
                }
            }
        }
        await session.close()
    }

    /// Burn-in turns the pixels (a quarter turn swaps the file's width and height) and leaves
    /// no rotation metadata: the matrix stays identity.
    func testBurnInTurnsThePixelsAndLeavesNoRotationMetadata() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        var options = RecordingOptions()
        options.burnIn = true
        for (angle, width, height) in [(RotationAngle.degrees90, 240, 320), (.degrees180, 320, 240), (.degrees270, 240, 320)] {
            await session.setRotation(angle)
            let recording = try await session.startRecording(to: dir.appendingPathComponent("burnt-\(angle.degrees).mp4"),
                                                             options: options)
            await eventually("10 frames burnt in at \(angle)") { recording.progress.frames >= 10 }
            let facts = try await recording.stop()
            let path = recording.url.path
            let probe = try XCTUnwrap(Probe.read(recording.url))
            XCTAssertEqual(probe.width, width, "\(angle)")
            XCTAssertEqual(probe.height, height, "\(angle)")
            XCTAssertEqual(probe.frames, facts.frames)
            XCTAssertEqual(try IndependentReaders.ffprobeRotation(path), 0, "no display matrix at \(angle)")
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), 0, "identity matrix at \(angle)")
            XCTAssertEqual(facts.width, width)
            XCTAssertEqual(facts.height, height)
            XCTAssertEqual(facts.orientation, 0)
            XCTAssertEqual(facts.burnedIn, angle.degrees)
        }
        await session.close()
    }

    /// The burnt-in pixels turn the right way, read back by ffmpeg decoding the file. The SMPTE
    /// bars scroll sideways, but their rows stay put: the top two thirds (the bars) are light
    /// on average, the bottom third dark. Turned 90° clockwise the top goes to the right, so
    /// the left third of the file's frame is the dark one (counter-clockwise: the right).
    func testBurnInTurnsClockwise() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(.smpte), size: qvga)
        var options = RecordingOptions()
        options.burnIn = true
        for angle in [RotationAngle.degrees90, .degrees270] {
            await session.setRotation(angle)
            let recording = try await session.startRecording(to: dir.appendingPathComponent("turn-\(angle.degrees).mp4"),
                                                             options: options)
            _ = try await recording.firstFrameTime()
            _ = try await recording.stop()
            // The first frame as 8-bit grey, 240 wide and 320 high.
            let raw = dir.appendingPathComponent("frame-\(angle.degrees).gray")
            try runTool("ffmpeg", ["-v", "error", "-i", recording.url.path, "-frames:v", "1", "-f", "rawvideo",
                                   "-pix_fmt", "gray", raw.path])
            let pixels = try Data(contentsOf: raw)
            XCTAssertEqual(pixels.count, 240 * 320)
            func columns(_ range: Range<Int>) -> Double {
                var sum = 0
                for y in 0..<320 { for x in range { sum += Int(pixels[y * 240 + x]) } }
                return Double(sum) / Double(320 * range.count)
            }
            let left = columns(10..<60), right = columns(180..<230)
            if angle == .degrees90 {
                XCTAssertLessThan(left + 30, right, "clockwise: the bars' bottom band should be on the left (\(left) vs \(right))")
            } else {
                XCTAssertLessThan(right + 30, left, "counter-clockwise: the bottom band should be on the right (\(left) vs \(right))")
            }
        }
        await session.close()
    }

    /// Photos at each angle, taken from a followed observer: EXIF Orientation as exiftool
    /// reads it (1, 6, 3, 8), pixels untouched; and a recording started at each angle carries it.
    func testStillsAndRecordingsFollowAReplayedMotion() async throws {
        let dir = try temporaryDirectory(self)
        let hand = HandheldAccelerometer()
        let observer = RotationObserver(accelerometer: hand)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        try await session.follow(observer)
        for angle in [RotationAngle.degrees90, .degrees180, .degrees270, .degrees0] {
            hand.turn(to: angle)
            await eventually("the session did not reach \(angle)") { await session.rotation == angle }
            let photo = try await session.takePhoto()
            let url = try write(photo.jpeg, named: "still-\(angle.degrees).jpg", in: dir)
            let tags = try exif(url)
            XCTAssertEqual(tags["Orientation"], String(angle.exifOrientation), "\(angle)")
            XCTAssertEqual(tags["ImageWidth"], "320")
            XCTAssertEqual(tags["ImageHeight"], "240")
            let recording = try await session.startRecording(to: dir.appendingPathComponent("clip-\(angle.degrees).mp4"))
            _ = try await recording.firstFrameTime()
            _ = try await recording.stop()
            XCTAssertEqual(try IndependentReaders.ffprobeClockwise(recording.url.path), angle)
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", recording.url.path), angle.degrees)
        }
        XCTAssertEqual([1, 6, 3, 8], [RotationAngle.degrees0, .degrees90, .degrees180, .degrees270].map(\.exifOrientation))
        await session.close()
        observer.stop()
    }
}
