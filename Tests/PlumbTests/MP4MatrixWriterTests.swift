import Foundation
import PlumbTestSupport
import Plumb
import PlumbMedia
import XCTest
import PlumbRotation

/// Recordings from a running capture session carry the session's angle in their track matrix,
/// with the default movie options (the MP4 track matrix writer is on by default).
final class MP4MatrixWriterTests: XCTestCase {
    func testSessionRecordingsCarryTheLatchedAngle() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240))
        var options = RecordingOptions()
        XCTAssertTrue(options.matrixWriter is MP4MatrixWriter, "on by default")
        options.fragmentDuration = .milliseconds(200)
        for angle in RotationAngle.allCases {
            await session.setRotation(angle)
            let url = dir.appendingPathComponent("session-\(angle.degrees).mp4")
            let recording = try await session.startRecording(to: url, options: options)
            _ = try await recording.firstFrameTime()
            // Turning the device during the recording does not change the file's angle.
            let framesAtTurn = recording.progress.frames
            await session.setRotation(angle + .degrees90)
            await eventually("15 frames recorded after the turn") { recording.progress.frames >= framesAtTurn + 15 }
            let facts = try await recording.stop()
            XCTAssertEqual(facts.orientation, angle.degrees)
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", url.path), angle.degrees, "exiftool at \(angle)")
            XCTAssertEqual(try IndependentReaders.ffprobeClockwise(url.path), angle, "ffprobe at \(angle)")
            XCTAssertEqual(try MediaInspector.inspect(path: url.path).rotation, angle, "Plumb at \(angle)")
        }
        await session.close()
    }
}
