import Foundation
import Plumb
import PlumbTestSupport
import XCTest

/// A recorder killed with SIGKILL (power cut, OOM killer) leaves a file that plays up to
/// its last whole fragment.
final class CrashRecoveryTests: XCTestCase {
    /// The tiny recorder built beside the tests.
    private var testRig: URL { Bundle.main.bundleURL.appendingPathComponent("plumb-testrig") }

    func testKillDashNineLosesAtMostTheLastFragment() async throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("killed.mp4")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: testRig.path), "build plumb-testrig first")
        let (process, out, err) = try PlumbProcess.start(testRig, ["record", file.path, "--seconds", "120",
                                                                   "--size", "320x240", "--fps", "30"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Wait for the rig to say its first frame is in.
        let started = try await within(.seconds(30), "the recorder's first frame") {
            var text = ""
            while !text.contains("\"event\":\"recording\"") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { throw CaptureError.closed }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return Date()
        }
        try await Task.sleep(for: .milliseconds(3500))
        kill(process.processIdentifier, SIGKILL)
        let elapsed = Date().timeIntervalSince(started)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        _ = err

        let fragment = 1.0  // MovieOptions' default fragment duration
        let video = try ProbedVideo(file)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertTrue(video.firstPacketIsKeyframe)
        print("killed after \(elapsed) s of recording; the file holds \(video.seconds) s (\(video.packets) frames)")
        XCTAssertGreaterThanOrEqual(video.seconds, elapsed - fragment, "more than one fragment was lost")
        XCTAssertLessThanOrEqual(video.seconds, elapsed + 0.5)
        // Decodable to the end, not only listed.
        let decoded = try XCTUnwrap(Probe.read(file))
        XCTAssertEqual(decoded.frames, video.packets)
    }
}
