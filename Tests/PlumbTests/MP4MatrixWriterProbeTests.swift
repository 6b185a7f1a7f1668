import Foundation
import PlumbTestSupport
import GStreamer
import Plumb
import XCTest
import GLib
import PlumbMedia
import PlumbRotation

/// Recordings made by real pipelines (built with Plumb's GStreamer layer) with the writer's probe
/// on mp4mux, read back by ffprobe, exiftool and Plumb.
final class MP4MatrixWriterProbeTests: XCTestCase {
    /// mp4mux modes, and how many movie headers each pushes for a 30-frame recording to a seekable
    /// sink: plain writes one at the end; fragmented writes one first and rewrites it in place at
    /// EOS with the final duration; first-moov-then-finalise writes one first and the final one at the
    /// end; robust rewrites it into reserved space every 100 ms.
    static let modes: [(name: String, properties: String, headers: ClosedRange<Int>)] = [
        ("plain", "", 1...1),
        ("fragmented", "fragment-duration=200", 2...2),
        ("first-moov-then-finalise", "fragment-duration=200 fragment-mode=first-moov-then-finalise", 2...2),
        ("robust", "reserved-max-duration=10000000000 reserved-moov-update-period=100000000", 2...100),
    ]

    private var mainLoop: MainContextThread!

    override func setUp() {
        mainLoop = MainContextThread()
    }

    override func tearDown() {
        mainLoop.stop()
    }

    private func description(_ path: String, muxer properties: String, source: String = "num-buffers=30") -> String {
        "videotestsrc \(source) ! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc speed-preset=ultrafast "
            + "! h264parse ! mp4mux name=mux \(properties) ! filesink location=\(path)"
    }

    /// Plays the pipeline to EOS (or fails on an error), then stops it.
    private func playToEnd(_ pipeline: Pipeline) async throws {
        let messages = pipeline.messages(on: mainLoop.context)
        try pipeline.setState(.playing)
        for await message in messages {
            if case .eos = message { break }
            if case .error(let error) = message { XCTFail("pipeline error: \(error)"); break }
        }
        try pipeline.setState(.null)
    }

    func testRecordingsCarryTheAngleInEveryMuxerMode() async throws {
        let dir = try temporaryDirectory(self)
        for mode in Self.modes {
            for angle in RotationAngle.allCases {
                let label = "\(mode.name) at \(angle)"
                let path = dir.appendingPathComponent("\(mode.name)-\(angle.degrees).mp4").path
                let pipeline = try Pipeline.parse(description(path, muxer: mode.properties))
                let writer = MP4MatrixWriter.Probe(rotation: angle)
                try writer.install(on: XCTUnwrap(pipeline.element(named: "mux")))
                try await playToEnd(pipeline)

                let stats = writer.statistics
                XCTAssertEqual(stats.failures, [], label)
                XCTAssertTrue(mode.headers.contains(stats.headers), "\(label): \(stats.headers) headers")
                XCTAssertEqual(stats.tracks, stats.headers, "one video track per header, \(label)")
                XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), angle.degrees, "exiftool, \(label)")
                XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), angle, "ffprobe, \(label)")
                XCTAssertEqual(try IndependentReaders.ffprobePacketCount(path), 30, "every frame kept, \(label)")
                XCTAssertEqual(try MediaInspector.inspect(path: path).rotation, angle, "Plumb, \(label)")
            }
        }
    }

    /// A fragmented recording cut without EOS (as by a power cut) keeps its first header, which
    /// already carries the angle.
    func testAFragmentedRecordingCutShortIsAlreadyOriented() async throws {
        let dir = try temporaryDirectory(self)
        for (mode, properties) in [("dash", "fragment-duration=200"),
                                   ("finalise", "fragment-duration=200 fragment-mode=first-moov-then-finalise")] {
            let path = dir.appendingPathComponent("\(mode)-cut.mp4").path
            let pipeline = try Pipeline.parse(description(path, muxer: properties, source: "is-live=true"))
            let writer = MP4MatrixWriter.Probe(rotation: .degrees270)
            try writer.install(on: XCTUnwrap(pipeline.element(named: "mux")))
            try pipeline.setState(.playing)
            // Wait for a few fragments on disk, then stop without EOS: the muxer never finalises.
            await eventually("40 kB of fragments in \(path)") {
                ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int ?? 0) > 40_000
            }
            try pipeline.setState(.null)
            XCTAssertEqual(writer.statistics.headers, 1, "only the first header was pushed, \(mode)")
            let info = try MP4File.inspect(path: path)
            XCTAssertTrue(info.isFragmented, mode)
            XCTAssertEqual(info.rotation, .degrees270, mode)
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), 270, "exiftool, \(mode)")
            XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), .degrees270, "ffprobe, \(mode)")
            XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(path), 5, "playable, \(mode)")
        }
    }

    /// The streamheader in the muxer's caps holds a second reference to the final header:
    /// the probe must write into a copy and hand the copy on, never into the shared buffer.
    func testASharedHeaderBufferIsCopiedAndTheCopyTravelsOn() async throws {
        let path = try temporaryDirectory(self).appendingPathComponent("shared.mp4").path
        let pipeline = try Pipeline.parse(description(path, muxer: ""))
        let mux = try XCTUnwrap(pipeline.element(named: "mux"))
        let writer = MP4MatrixWriter.Probe(rotation: .degrees90)
        try writer.install(on: mux)
        try await playToEnd(pipeline)
        XCTAssertEqual(writer.statistics.headers, 1)
        XCTAssertEqual(writer.statistics.copies, 1, "mp4mux keeps the final moov in its caps too")
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), 90)
    }

    func testInstallingOnAnElementWithoutSrcPadIsAnError() throws {
        let sink = try Element(factory: "fakesink")
        XCTAssertThrowsError(try MP4MatrixWriter.Probe(rotation: .degrees90).install(on: sink)) { error in
            XCTAssertTrue("\(error)".contains("has no \"src\" pad"), "\(error)")
            // Plumb's own word, not an error GStreamer never reported.
            guard case CaptureError.invalidArgument? = error as? CaptureError else { return XCTFail("\(type(of: error))") }
        }
    }
}
