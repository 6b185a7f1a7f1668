import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest

/// A whole session — camera, preview, recordings, photos — leaves no GStreamer object,
/// Swift wrapper, bus watch or thread behind once closed, by GStreamer's `leaks` tracer.
///
/// Tracers are read only at gst_init and all test targets share one process, so without
/// `GST_TRACERS=leaks` the test runs itself again in a child process with the tracer on.
final class SessionLeakTests: XCTestCase {
    static let childMarker = "PLUMB_SESSION_LEAK_CHILD"
    static let testName = "PlumbTests.SessionLeakTests/testASessionLeavesNothingBehind"

    func testASessionLeavesNothingBehind() async throws {
        guard LeakTracer.isActive else {
            if ProcessInfo.processInfo.environment[Self.childMarker] != nil {
                return XCTFail("the leaks tracer is not active although GST_TRACERS=leaks was set")
            }
            return try runInChildWithTracer()
        }
        let dir = try temporaryDirectory(self)
        // The first session loads plugins, registers types, makes the system clock and the
        // thread pools: objects that live as long as the process, outside the comparison.
        try await useASession(dir, recordings: 1, photos: 2)
        let baseline = try await settledCounts()
        let wrappers = LiveCounts.liveObjectWrappers
        let watches = LiveCounts.liveBusWatches
        let threads = threadCount

        let whileOpen = try await useASession(dir, recordings: 8, photos: 16)

        let before = baseline.values.reduce(0, +)
        let after = try await settledCounts(atMost: before)
        let grown = after.compactMap { type, count -> String? in
            let growth = count - (baseline[type] ?? 0)
            return growth > 0 ? "\(type) +\(growth)" : nil
        }.sorted()
        let threadsAfter = threadCount
        print("session-leak-test: live GStreamer objects before=\(before) after=\(after.values.reduce(0, +)) "
              + "(\(whileOpen) in a closed session not yet released); "
              + "Swift wrappers before=\(wrappers) after=\(LiveCounts.liveObjectWrappers); "
              + "bus watches before=\(watches) after=\(LiveCounts.liveBusWatches); threads before=\(threads) after=\(threadsAfter)")
        XCTAssertEqual(grown, [], "GStreamer objects left alive by a session")
        XCTAssertEqual(LiveCounts.liveObjectWrappers, wrappers, "Swift wrappers left alive")
        XCTAssertEqual(LiveCounts.liveBusWatches, watches, "bus watches left attached")
        XCTAssertLessThanOrEqual(threadsAfter, threads + 2, "threads left running")
    }

    /// Opens a session, runs a preview, recordings and photos on it, closes it, and waits
    /// until its executor thread has ended. Returns the live objects counted after closing
    /// (nothing streams then) but before releasing the session.
    ///
    /// The tracer must see at least what the closed session still holds — its pipeline with
    /// every element and pad in it, by type — so a tracer that sees nothing fails, whatever
    /// optional elements (timeoverlay) this machine has.
    @discardableResult
    private func useASession(_ dir: URL, recordings: Int, photos: Int) async throws -> Int {
        var session: CaptureSession? = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 160, height: 120))
        let executor = try XCTUnwrap(session?.executor)
        let preview = PreviewOutput()
        try await session!.attach(preview)
        for i in 0..<recordings {
            let recording = try await session!.startRecording(to: dir.appendingPathComponent("leak\(i).mp4"))
            _ = try await recording.firstFrameTime()
            await eventually("frames in leak\(i).mp4") { recording.progress.frames >= 4 }
            _ = try await recording.stop()
        }
        for _ in 0..<photos { _ = try await session!.takePhoto() }
        try await session!.detach(preview)
        await session!.close()
        let built = await session!.builtObjectCounts()
        let seen = LeakTracer.liveCounts() ?? [:]
        for type in ["GstPipeline", "GstVideoTestSrc", "GstCapsFilter", "GstTee"] {
            XCTAssertNotNil(built[type], "the closed session holds no \(type): \(built)")
        }
        for (type, count) in built.sorted(by: { $0.key < $1.key }) {
            XCTAssertGreaterThanOrEqual(seen[type] ?? 0, count, "the tracer must see the session's \(type) objects")
        }
        let live = seen.values.reduce(0, +)
        session = nil
        XCTAssertTrue(executor.waitUntilStopped(timeout: .seconds(10)), "the session's thread did not end")
        return live
    }

    /// Live objects by type, once two snapshots a moment apart agree, or at once when at most `limit`.
    private func settledCounts(atMost limit: Int? = nil) async throws -> [String: Int] {
        var previous = try XCTUnwrap(LeakTracer.liveCounts())
        for _ in 0..<60 {
            if let limit, previous.values.reduce(0, +) <= limit { return previous }
            try await Task.sleep(for: .milliseconds(50))  // the thing tested: two snapshots this far apart agree
            let now = try XCTUnwrap(LeakTracer.liveCounts())
            if now == previous && limit == nil { return now }
            previous = now
        }
        return previous
    }

    private func runInChildWithTracer() throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var environment = ProcessInfo.processInfo.environment
        environment["GST_TRACERS"] = "leaks"
        environment[Self.childMarker] = "1"
        let process = Process()
        process.executableURL = binary
        process.arguments = [Self.testName]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for line in output.split(separator: "\n") where line.hasPrefix("session-leak-test:") || line.contains("error:") {
            print("child: \(line)")
        }
        XCTAssertEqual(process.terminationStatus, 0, "the child run failed:\n\(output)")
        XCTAssertTrue(output.contains("Executed 1 test,"), "the child did not run the test:\n\(output)")
        XCTAssertTrue(output.contains("session-leak-test:"), output)
    }
}

extension CaptureSession {
    /// The GStreamer objects the session's pipeline holds: the pipeline, every element in it
    /// (bins included) and their pads, counted by type name.
    func builtObjectCounts() -> [String: Int] {
        guard let pipeline else { return [:] }
        var types = [pipeline.typeName]
        for element in pipeline.allElements {
            types.append(element.typeName)
            types += element.pads.map(\.typeName)
        }
        return Dictionary(types.map { ($0, 1) }, uniquingKeysWith: +)
    }
}
