import Foundation
import GStreamer
@testable import PlumbService
import PlumbTestSupport
import Soup
import Synchronization
import XCTest
@testable import Plumb
import PlumbRotation

/// The daemon behind `plumb serve`, driven in-process where a test must reach inside:
/// a camera that fails while recording (played by an error posted on its source, as an
/// unplugged camera posts one) is survived — 503 meanwhile, the camera reopened, the
/// recording resumed in a new file, the interrupted file finalized.
final class ServeDaemonTests: XCTestCase {
    /// Log lines, collected from whichever thread writes them.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
    }

    static func config(folder: URL) -> ServeConfig {
        var config = ServeConfig()
        config.camera.device = .test
        config.camera.size = .init(width: 320, height: 240)
        config.rotation.accelerometer = .fixed(.degrees0)
        config.preview.address = "127.0.0.1"
        config.preview.port = 0
        config.http.listen = ListenAddress(host: "127.0.0.1", port: 0)!
        config.recording.folder = folder.path
        config.recording.continuous = true
        config.recording.segmentSeconds = 0
        return config
    }

    func testACameraFailureIsSurvivedAndTheRecordingResumesInANewFile() async throws {
        let dir = try temporaryDirectory(self)
        let lines = Lines()
        let config = Self.config(folder: dir)
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: lines.add)
        _ = try await daemon.start()
        guard case .running(let session) = daemon.camera.current else { return XCTFail("the camera did not open: \(lines.all)") }
        try await session.waitForFrames(30)
        let first = try await XCTUnwrapAsync(await daemon.recorder.currentFile)

        // The camera "is unplugged": its source reports a read error.
        await session.element(named: "src")?.postResourceError("Could not read from resource (test: unplugged)")
        await eventually("the camera to be seen gone") { daemon.camera.stateName == "unavailable" }
        XCTAssertThrowsError(try daemon.camera.session()) { error in
            XCTAssertEqual((error as? APIError)?.status, 503, "\(error)")
        }
        // Reopened (after a one-second backoff), and recording again in a new file.
        await eventually("the camera to be reopened") { daemon.camera.stateName == "running" }
        var resumed: String?
        await eventually("the recording to resume in a new file: \(lines.all)") {
            let now = await daemon.recorder.currentFile
            if let now, now != first { resumed = now }
            return resumed != nil
        }
        guard case .running(let reopened) = daemon.camera.current else { return XCTFail("no session") }
        XCTAssertFalse(reopened === session, "a new session")
        try await reopened.waitForFrames(30)
        await daemon.shutdown()

        // Both files are whole MP4s that ffprobe reads to the end.
        for name in [first, try XCTUnwrap(resumed)] {
            let path = dir.appendingPathComponent(name).path
            XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(path), 15, name)
        }
        XCTAssertTrue(lines.contains("camera lost: "), "\(lines.all)")
        XCTAssertTrue(lines.contains("test: unplugged"), "\(lines.all)")
    }
}

extension ServeDaemonTests {
    /// A clip that a stop cuts short while its client cannot take it (`sent(false)`: gone,
    /// or not reading) is kept in the recordings folder and named in the log, and the stop
    /// waits for the answer's fate before it closes the HTTP server.
    func testAClipCutByAStopThatCannotBeDeliveredIsKeptAndNamed() async throws {
        let dir = try temporaryDirectory(self)
        let lines = Lines()
        var config = Self.config(folder: dir)
        config.recording.continuous = false
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), log: lines.add)
        _ = try await daemon.start()
        guard case .running(let session) = daemon.camera.current else { return XCTFail("the camera did not open: \(lines.all)") }
        try await session.waitForFrames(10)

        let asked = Task { try await daemon.backend.recordClip(seconds: 20) }
        // The stop comes once the clip is under way: two seconds of frames after the ask.
        try await session.waitForFrames(60, timeout: .seconds(30))
        let stopped = Mutex(false)
        let stop = Task {
            await daemon.shutdown(reason: "the test stops it")
            stopped.withLock { $0 = true }
        }
        let clip = try await asked.value
        let facts = try XCTUnwrap(clip.facts as? RecordingFacts)
        XCTAssertTrue(facts.cutShort?.hasPrefix("the test stops it: ") == true, "\(facts)")
        XCTAssertLessThan(facts.seconds, 10)
        try await Task.sleep(for: .seconds(1))  // the thing tested: the stop does not end in this second
        XCTAssertFalse(stopped.withLock { $0 }, "the stop must wait for the clip's answer")

        clip.sent?(false)
        await stop.value
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let kept = try XCTUnwrap(names.first { $0.hasPrefix("clip-") && $0.hasSuffix(".mp4") }, "\(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix(SessionBackend.clipPrefix) }, "no temporary clip is left: \(names)")
        XCTAssertTrue(lines.contains("clip kept: \(dir.path)/\(kept): \(facts.frames) frames (the test stops it: "),
                      "\(lines.all)")
        XCTAssertTrue(lines.contains("s asked for); its client could not take it"), "\(lines.all)")
        XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(dir.appendingPathComponent(kept).path), facts.frames)
        // Listed like any recording.
        XCTAssertEqual(try daemon.folder.list().map(\.name), [kept])
    }
}

/// XCTUnwrap for a value produced by an `await`.
func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
