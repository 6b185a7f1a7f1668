import Foundation
import PlumbTestSupport
import XCTest

/// `plumb run`: plays to EOS, stops cleanly on --duration and on signals, and
/// leaves MP4 files that ffprobe reads.
final class RunCommandTests: XCTestCase {
    func testRunWritesAnMP4WithTheExpectedFrameCount() throws {
        let dir = try temporaryDirectory(self)
        let out = dir.appendingPathComponent("r.mp4")
        let r = try PlumbProcess.plumb("run", "pipelines/record-mp4.pipeline", "-D", "location=\(out.path)",
                                       "-D", "frames=45", "-D", "width=320", "-D", "height=240", timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("state: PAUSED -> PLAYING"), r.stdout)
        let probe = try XCTUnwrap(Probe.read(out))
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertEqual(probe.frames, 45)
        XCTAssertEqual(probe.width, 320)
        XCTAssertEqual(probe.height, 240)
    }

    func testSIGINTFinalizesTheMP4() throws {
        try stopWithSignal(SIGINT, name: "SIGINT")
    }

    func testSIGTERMFinalizesTheMP4() throws {
        try stopWithSignal(SIGTERM, name: "SIGTERM")
    }

    private func stopWithSignal(_ signal: Int32, name: String) throws {
        let dir = try temporaryDirectory(self)
        let out = dir.appendingPathComponent("s.mp4")
        let (p, o, e) = try PlumbProcess.start(PlumbProcess.binary, [
            "run", "pipelines/record-mp4.pipeline", "-D", "location=\(out.path)", "-D", "width=320", "-D", "height=240",
        ])
        // Wait for 45 frames in the file (fragmented: ffprobe reads it while it grows).
        eventually("45 frames in \(out.lastPathComponent)", timeout: .seconds(60), every: .milliseconds(200)) {
            ((try? IndependentReaders.ffprobeFrameCount(out.path)) ?? 0) >= 45
        }
        kill(p.processIdentifier, signal)
        let r = PlumbProcess.finish(p, o, e, timeout: 30)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\(name): sending EOS"), r.stdout)
        let probe = try XCTUnwrap(Probe.read(out), "ffprobe cannot read the file left by \(name)")
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertGreaterThan(probe.duration, 1.5)
        XCTAssertGreaterThan(probe.frames, 40)
        // A clean stop leaves a normal (finalised) MP4: the index is in the moov.
        let boxes = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "trace", out.path]).stderr
        XCTAssertTrue(boxes.contains("type:'moov'"), "no moov box")
    }

    func testDurationStopsWithEOS() throws {
        let dir = try temporaryDirectory(self)
        let out = dir.appendingPathComponent("d.mp4")
        let r = try PlumbProcess.plumb("run", "pipelines/record-mp4.pipeline", "-D", "location=\(out.path)",
                                       "-D", "width=320", "-D", "height=240", "--duration", "1.5", timeout: 60)
        XCTAssertEqual(r.code, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("--duration reached"), r.stdout)
        let probe = try XCTUnwrap(Probe.read(out))
        XCTAssertEqual(probe.duration, 1.5, accuracy: 0.5)
    }

    func testARuntimeErrorExits1WithTheBusError() throws {
        let dir = try temporaryDirectory(self)
        let garbage = dir.appendingPathComponent("garbage.bin")
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: garbage)
        let file = dir.appendingPathComponent("bad.pipeline")
        // A valid description that fails only once data flows: typefind finds no type.
        try "filesrc location=\(garbage.path) ! typefind name=probe ! fakesink\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.plumb("run", file.path, timeout: 30)
        XCTAssertEqual(r.code, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("error: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("GstTypeFindElement:probe"), "the error names its element: \(r.stderr)")
    }

    func testABadDescriptionExits2BeforeStarting() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("bad.pipeline")
        try "videotestsrc ! nosuch ! fakesink\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.plumb("run", file.path)
        XCTAssertEqual(r.code, 2)
        XCTAssertTrue(r.stderr.hasPrefix("\(file.path):1:16: error: no element \"nosuch\""), r.stderr)
        XCTAssertFalse(r.stdout.contains("state:"), r.stdout)
    }

    /// What `check` finds wrong in the links and names, `run` refuses at the same place
    /// before anything starts: not "not-linked" once playing, not a crash.
    func testUnlinkedElementsAndDuplicateNamesExit2AtTheirPlace() throws {
        let dir = try temporaryDirectory(self)
        let cases: [(String, String, String)] = [
            ("videotestsrc name=src\n ! videoconvert\n fakesink\n", "3:2", "missing \"!\" before fakesink?"),
            ("videotestsrc name=src ! fakesink name=src\n", "1:34", "duplicate element name \"src\""),
            ("videotestsrc name=src\n  ! fakesink name=src\n", "2:14", "duplicate element name \"src\""),
        ]
        for (n, (body, place, words)) in cases.enumerated() {
            let file = dir.appendingPathComponent("case\(n).pipeline")
            try body.write(to: file, atomically: true, encoding: .utf8)
            let r = try PlumbProcess.plumb("run", file.path, "--duration", "2")
            XCTAssertEqual(r.code, 2, "case \(n): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("\(file.path):\(place): error: \(words)"), "case \(n): \(r.stderr)")
            XCTAssertFalse(r.stdout.contains("state:"), r.stdout)
        }
    }

    func testFileSinkErrorExits1() throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("sink.pipeline")
        try "videotestsrc num-buffers=5 ! filesink location=/nonexistent/dir/out\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try PlumbProcess.plumb("run", file.path)
        XCTAssertEqual(r.code, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("/nonexistent/dir/out"), r.stderr)
        XCTAssertTrue(r.stderr.contains("GstFileSink"), "the error names its element: \(r.stderr)")
    }
}
