import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbDescription
import PlumbTestSupport
import Synchronization
import XCTest
import PlumbRotation

/// Rotation for description files: the `preview_flip` and `rec_mux` roles driven by a
/// replayed accelerometer, checked on the running pipeline and on the file it wrote.
final class RoleRotatorTests: XCTestCase {
    private func description(recordingTo path: String, frames: Int) -> String {
        """
        # name: turned
        # description: a preview and a recording, both turned by Plumb
        # var: frames=\(frames)
        videotestsrc name=src is-live=true num-buffers=${frames} pattern=ball
          ! video/x-raw,width=320,height=240,framerate=30/1
          ! tee name=tee
        tee. ! queue ! videoflip name=preview_flip ! fakesink name=preview_sink sync=false
        tee. ! queue ! x264enc name=rec_enc tune=zerolatency speed-preset=ultrafast key-int-max=15
          ! h264parse ! mp4mux name=rec_mux fragment-duration=500 fragment-mode=first-moov-then-finalise
          ! filesink location=\(path)
        """
    }

    /// The flip's `video-direction` follows the replayed angles as GStreamer reports it (and
    /// the caps at the preview's sink with it); the recording carries the angle of its first
    /// frame in its track matrix, for ffprobe and exiftool.
    func testTheFlipFollowsAReplayAndTheMuxerWritesTheMatrix() async throws {
        let dir = try temporaryDirectory(self)
        let movie = dir.appendingPathComponent("roles.mp4")
        let resolved = try PipelineDescription(text: description(recordingTo: movie.path, frames: 75), file: "turned.pipeline")
            .resolve()
        let pipeline = try PipelineLoader.build(resolved)
        let motion = try replayFile([.degrees90, .degrees180, .degrees270], hold: .milliseconds(700), in: dir)
        let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(motion)))
        observer.start()
        await eventually("the observer at 90°") { observer.captureAngle == .degrees90 }

        let rotator = try RoleRotator(pipeline: pipeline, observer: observer)
        XCTAssertEqual(rotator.flips, ["preview_flip"])
        XCTAssertEqual(rotator.muxers, ["rec_mux"])
        rotator.start()
        let flip = try XCTUnwrap(pipeline.element(named: "preview_flip"))
        XCTAssertEqual(try flip.get("video-direction", as: EnumNick.self), "90r", "the current angle before the first frame")

        // What the pipeline itself says: the flip's property and the sizes at the preview's sink.
        let sizes = Mutex<[String]>([])
        let sinkPad = try XCTUnwrap(pipeline.element(named: "preview_sink")?.staticPad("sink"))
        sinkPad.addProbe(.buffer) { pad, _ in
            if let s = pad.currentCaps?.structure(at: 0), let w = s.int("width"), let h = s.int("height") {
                sizes.withLock { if $0.last != "\(w)x\(h)" { $0.append("\(w)x\(h)") } }
            }
            return .ok
        }
        // Each change as GObject announces it (notify::video-direction), from the current one on.
        let directions = Mutex<[String]>(["90r"])
        flip.onChange(of: "video-direction") { [weak flip] in
            if let d = try? flip?.get("video-direction", as: EnumNick.self).nick {
                directions.withLock { if $0.last != d { $0.append(d) } }
            }
        }
        let outcome = await PipelineRunner(pipeline: pipeline).run(duration: .seconds(10))
        XCTAssertEqual(outcome, .finished(stopped: false))
        await observer.waitForSourceEnd()

        XCTAssertEqual(directions.withLock { $0 }, ["90r", "180", "90l"])
        XCTAssertEqual(sizes.withLock { $0 }, ["240x320", "320x240", "240x320"])
        XCTAssertEqual(rotator.previewRotation, .degrees270)
        XCTAssertEqual(rotator.previewChanges, 2)
        XCTAssertEqual(rotator.latchedRotations, ["rec_mux": .degrees90])
        let stats = try XCTUnwrap(rotator.writerStatistics(mux: "rec_mux"))
        XCTAssertGreaterThanOrEqual(stats.headers, 1)
        XCTAssertEqual(stats.failures, [])

        XCTAssertEqual(try IndependentReaders.ffprobeRotation(movie.path), -90, "ffprobe counts counter-clockwise")
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", movie.path), 90)
        XCTAssertEqual(try Probe.read(movie)?.frames, 75)
        rotator.stop()
        observer.stop()
    }

    /// A role on the wrong kind of element is refused with what to do; a pipeline without
    /// roles has nothing to rotate.
    func testRolesOnTheWrongElementsAreRefused() throws {
        let observer = RotationObserver(accelerometer: FixedAccelerometer(.degrees90))
        let wrongFlip = try Pipeline.parse("videotestsrc ! videoconvert name=preview_flip_hdmi ! fakesink")
        XCTAssertThrowsError(try RoleRotator(pipeline: wrongFlip, observer: observer)) { error in
            XCTAssertTrue("\(error)".contains("preview_flip_hdmi has the role preview_flip but is a videoconvert"), "\(error)")
            // Plumb's own word on the description, not an error GStreamer never reported.
            guard case CaptureError.invalidArgument? = error as? CaptureError else { return XCTFail("\(type(of: error))") }
        }
        let wrongMux = try Pipeline.parse("videotestsrc ! x264enc ! matroskamux name=rec_mux ! fakesink")
        XCTAssertThrowsError(try RoleRotator(pipeline: wrongMux, observer: observer)) { error in
            XCTAssertTrue("\(error)".contains("not an mp4mux or qtmux"), "\(error)")
        }
        let none = try RoleRotator(pipeline: try Pipeline.parse("videotestsrc ! fakesink"), observer: observer)
        XCTAssertTrue(none.isEmpty)
    }
}
