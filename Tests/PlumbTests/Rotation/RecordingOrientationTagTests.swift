import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest
import PlumbRotation

/// The angle reaches the muxer as its `image-orientation` tag in every recording; Plumb's own
/// `tkhd` rewrite is installed only where the muxer ignores the tag (GStreamer 1.22), not where
/// it writes the matrix itself (1.26). The same tests pass on both: the files are read by
/// exiftool and ffprobe, and each test states which path made the matrix.
final class RecordingOrientationTagTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    private func options(_ container: RecordingContainer) -> RecordingOptions {
        var options = RecordingOptions()
        options.container = container
        options.fragmentDuration = .milliseconds(200)
        return options
    }

    private func checkMatrix(_ url: URL, _ angle: RotationAngle, _ label: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", url.path), angle.degrees, "exiftool, \(label)",
                       file: file, line: line)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(url.path), angle, "ffprobe, \(label)", file: file, line: line)
    }

    /// The probe agrees with gst-launch: mp4mux fed an `image-orientation` tag by taginject,
    /// the matrix read back by exiftool. And it gives the answer each supported platform has:
    /// no on GStreamer 1.22 (Debian 12), yes on 1.26 (Debian 13).
    func testTheProbeAgreesWithTheMuxerAsGstLaunchRunsIt() throws {
        let dir = try temporaryDirectory(self)
        let path = dir.appendingPathComponent("tagged.mp4").path
        try IndependentReaders.gstLaunch("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! x264enc "
            + "! h264parse ! taginject tags=image-orientation=rotate-90 ! mp4mux ! filesink location=\(path)")
        let honoured = try IndependentReaders.exiftool("Rotation", path) == 90
        XCTAssertEqual(RecordingOrientationTag.muxerWritesMatrix, honoured, Gst.versionString)
        let version = Gst.version
        if version.major == 1 && version.minor == 22 { XCTAssertFalse(honoured, Gst.versionString) }
        if version.major == 1 && version.minor >= 26 { XCTAssertTrue(honoured, Gst.versionString) }
    }

    /// Each of the four angles in each of the three layouts: the matrix is right for exiftool
    /// and ffprobe, and Plumb's rewrite was installed exactly where the muxer ignores the tag.
    func testEveryAngleInEveryLayoutIsOrientedByThePathThisMuxerNeeds() async throws {
        let dir = try temporaryDirectory(self)
        let rewrite = !RecordingOrientationTag.muxerWritesMatrix
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        for angle in RotationAngle.allCases {
            await session.setRotation(angle)
            var recordings: [(RecordingContainer, Recording)] = []
            for container in RecordingContainer.allCases {
                let url = dir.appendingPathComponent("\(container)-\(angle.degrees).mp4")
                recordings.append((container, try await session.startRecording(to: url, options: options(container))))
            }
            for (container, r) in recordings {
                await eventually("10 frames of \(container) at \(angle)") { r.progress.frames >= 10 }
            }
            for (container, recording) in recordings {
                let label = "\(container) at \(angle)"
                let facts = try await recording.stop()
                XCTAssertEqual(facts.orientation, angle.degrees, label)
                XCTAssertEqual(recording.segments.first?.rewritesMatrix, rewrite, "Plumb's rewrite installed, \(label)")
                try checkMatrix(recording.url, angle, label)
                XCTAssertEqual(try IndependentReaders.ffprobePacketCount(recording.url.path), facts.frames, label)
            }
        }
        await session.close()
    }

    /// Split on rotation, in each layout: every file carries its own angle, by the same path.
    func testEachFileOfASplitRecordingCarriesItsAngle() async throws {
        let dir = try temporaryDirectory(self)
        let rewrite = !RecordingOrientationTag.muxerWritesMatrix
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        for container in RecordingContainer.allCases {
            await session.setRotation(.degrees0)
            var options = options(container)
            options.splitOnRotation = true
            let recording = try await session.startRecording(to: dir.appendingPathComponent("split-\(container).mp4"),
                                                             options: options)
            _ = try await recording.firstFrameTime()
            let turns: [RotationAngle] = [.degrees90, .degrees180, .degrees270]
            for (n, angle) in turns.enumerated() {
                await session.setRotation(angle)
                await eventually("\(container): \(recording.rollOverFailures)") { recording.segments.count == n + 2 }
                await eventually("frames in the \(angle) file") { recording.latest.progress.frames >= 5 }
            }
            let facts = try await recording.stop()
            XCTAssertEqual(facts.segments?.map(\.orientation), [0, 90, 180, 270], "\(container)")
            for (segment, angle) in zip(recording.segments, [RotationAngle.degrees0] + turns) {
                let label = "\(container), \(segment.url.lastPathComponent)"
                XCTAssertEqual(segment.rewritesMatrix, rewrite, "Plumb's rewrite installed, \(label)")
                try checkMatrix(segment.url, angle, label)
            }
        }
        await session.close()
    }

    /// Without Plumb's rewrite the tag alone decides: where the muxer honours it the file is
    /// still oriented, where it does not the matrix stays identity (so the rewrite is what
    /// orients files there, and is really not needed where it is left out).
    func testTheTagAloneOrientsExactlyWhereTheMuxerHonoursIt() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        await session.setRotation(.degrees270)
        for container in RecordingContainer.allCases {
            var options = options(container)
            options.matrixWriter = nil
            let recording = try await session.startRecording(to: dir.appendingPathComponent("tag-only-\(container).mp4"),
                                                             options: options)
            await eventually("10 frames of \(container)") { recording.progress.frames >= 10 }
            _ = try await recording.stop()
            XCTAssertEqual(recording.segments.first?.rewritesMatrix, false)
            let expected: RotationAngle = RecordingOrientationTag.muxerWritesMatrix ? .degrees270 : .degrees0
            try checkMatrix(recording.url, expected, "tag only, \(container) on \(Gst.versionString)")
        }
        await session.close()
    }
}
