import Foundation
import PlumbTestSupport
@testable import PlumbRotation
import XCTest

final class ReplayAccelerometerTests: XCTestCase {
    private func write(_ text: String) throws -> String {
        let file = try temporaryDirectory(self).appendingPathComponent("motion.txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    private func collect(_ source: ReplayAccelerometer) async -> [AccelerometerEvent] {
        var events: [AccelerometerEvent] = []
        for await e in source.events() { events.append(e) }
        return events
    }

    func testGarbageIsDroppedAndCountedNeverFatal() async throws {
        let path = try write("""
            # t_ms x y z
            0 0 9.8 0

            10, -9.8, 0.1, 0.3   # commas work too
            20 abc 9.8 0
            30 1 2
            40 nan 9.8 0
            50 0 inf 0
            60 0 0 0
            70 0 500 0
            80 1e400 0 0
            oops
            15 0 9.8 0
            90 9.8 0 0
            \u{0}\u{1}binary
            100 0 -9.8 0
            """)
        let events = await collect(try ReplayAccelerometer(input: .file(path), speed: 1000))
        XCTAssertEqual(events.first, .available("replay:\(path)"))
        let samples = events.compactMap { if case .sample(let s) = $0 { return s } else { return nil } }
        XCTAssertEqual(samples.map(\.time), [.zero, .milliseconds(10), .milliseconds(90), .milliseconds(100)])
        XCTAssertEqual(samples[1].x, -9.8)
        XCTAssertEqual(samples[1].z, 0.3)
        let dropped = events.compactMap { if case .dropped(let d) = $0 { return d } else { return nil } }
        XCTAssertEqual(dropped, [
            .nonNumeric("abc"), .nonNumeric("30 1 2"), .nonFinite, .nonFinite, .zeroVector,
            .absurdMagnitude(500), .nonFinite, .nonNumeric("oops"), .timeWentBackwards(.milliseconds(15)),
            .nonNumeric("\u{0}\u{1}binary"),
        ])
    }

    func testTimingIsHonouredAndCanBeSpedUp() async throws {
        let path = try write((0...4).map { "\($0 * 100) 0 9.8 0" }.joined(separator: "\n"))
        let clock = ContinuousClock()
        var start = clock.now
        var events = await collect(try ReplayAccelerometer(input: .file(path)))
        let normal = clock.now - start
        XCTAssertEqual(events.count, 6)
        XCTAssertGreaterThanOrEqual(normal, .milliseconds(400), "samples 400 ms apart cannot all arrive sooner")
        start = clock.now
        events = await collect(try ReplayAccelerometer(input: .file(path), speed: 8))
        let fast = clock.now - start
        XCTAssertEqual(events.count, 6)
        XCTAssertGreaterThanOrEqual(fast, .milliseconds(50))
        XCTAssertLessThan(fast, normal, "eight times faster")
        // The samples keep the file's timestamps whatever the speed.
        XCTAssertEqual(events.last, .sample(AccelerometerSample(time: .milliseconds(400), x: 0, y: 9.8, z: 0)))
    }

    func testLineReaderSplitsAcrossWritesAndKeepsALastLineWithoutNewline() async throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let recorder = Recorder(LineReader.lines(of: fds[0], closeWhenDone: true))
        func put(_ s: String) { _ = s.utf8CString.withUnsafeBufferPointer { Glibc.write(fds[1], $0.baseAddress, s.utf8.count) } }
        put("0 0 9")
        put(".8 0\n10 -9.8 0 0\n20 0")
        await recorder.wait { $0.count == 2 }
        put(" -9.8 0")
        close(fds[1])
        await recorder.wait { _ in recorder.isFinished }
        XCTAssertEqual(recorder.all, ["0 0 9.8 0", "10 -9.8 0 0", "20 0 -9.8 0"])
    }

    func testAnUnreadableFileIsReported() async throws {
        let dir = try temporaryDirectory(self)
        let path = dir.appendingPathComponent("gone.txt").path
        try "0 0 9.8 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        let source = try ReplayAccelerometer(input: .file(path))
        try FileManager.default.removeItem(atPath: path)
        let events = await collect(source)
        XCTAssertEqual(events.count, 1)
        guard case .unavailable(let why) = events.first else { return XCTFail("\(events)") }
        XCTAssertTrue(why.contains(path) && why.contains("No such file"), why)
    }
}
