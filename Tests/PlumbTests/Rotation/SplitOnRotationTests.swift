import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import XCTest
import PlumbRotation

/// `splitOnRotation`: a recording that turns becomes one file per angle, each upright, with
/// every frame the camera captured in exactly one of them.
final class SplitOnRotationTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    private var splitting: RecordingOptions {
        var options = RecordingOptions()
        options.splitOnRotation = true
        return options
    }

    /// Checks the files of a finished split recording against the tee's frames and the
    /// independent readers; returns each file's angle as ffprobe reads it.
    @discardableResult
    private func checkSegments(_ recording: Recording, _ facts: RecordingFacts, _ tee: TeeFrames,
                               file: StaticString = #filePath, line: UInt = #line) throws -> [RotationAngle?] {
        let segments = recording.segments
        let files = facts.segments ?? [facts]
        XCTAssertEqual(files.count, segments.count, file: file, line: line)
        XCTAssertEqual(files.map(\.file), segments.map(\.url.path), file: file, line: line)
        var angles: [RotationAngle?] = []
        for (segment, fileFacts) in zip(segments, files) {
            let path = segment.url.path
            let name = segment.url.lastPathComponent
            let angle = try IndependentReaders.ffprobeClockwise(path)
            angles.append(angle)
            XCTAssertEqual(angle?.degrees, fileFacts.orientation, "\(name): ffprobe against the facts", file: file, line: line)
            XCTAssertEqual(segment.latchedRotation?.degrees, fileFacts.orientation, file: file, line: line)
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), fileFacts.orientation, "\(name): exiftool",
                           file: file, line: line)
            let probe = try XCTUnwrap(Probe.read(segment.url), name, file: file, line: line)
            XCTAssertEqual(probe.frames, fileFacts.frames, "\(name): frames decoded (ffprobe -count_frames)",
                           file: file, line: line)
            XCTAssertGreaterThan(probe.frames, 0, name, file: file, line: line)
            XCTAssertTrue(try ProbedVideo(segment.url).firstPacketIsKeyframe, "\(name) starts on a keyframe",
                          file: file, line: line)
        }
        XCTAssertEqual(facts.frames, files.reduce(0) { $0 + $1.frames }, file: file, line: line)
        // Every frame the tee got between the first file's first frame and the last file's
        // last one is in exactly one file: the counts agree and the files follow each other
        // frame for frame.
        let spans = try segments.map { try XCTUnwrap($0.frameSpan, file: file, line: line) }
        XCTAssertEqual(tee.count(from: spans.first!.first, through: spans.last!.last), facts.frames,
                       "frames captured by the tee over the recording against frames in the files", file: file, line: line)
        for (a, b) in zip(spans, spans.dropFirst()) {
            let lastOfA = try XCTUnwrap(tee.index(of: a.last), file: file, line: line)
            let firstOfB = try XCTUnwrap(tee.index(of: b.first), file: file, line: line)
            XCTAssertEqual(firstOfB, lastOfA + 1, "a file must start on the frame after the previous one's last",
                           file: file, line: line)
        }
        return angles
    }

    /// Replayed rotations during a recording: one file per angle, named after the first,
    /// each with its own matrix, and their frames add up to the frames the camera captured.
    func testReplayedRotationsSplitTheRecordingFrameForFrame() async throws {
        let dir = try temporaryDirectory(self)
        let motion = try replayFile([.degrees0, .degrees90, .degrees180, .degrees270], hold: .milliseconds(600), in: dir)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        let tee = try await TeeFrames(session)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("turns.mp4"), options: splitting)
        _ = try await recording.firstFrameTime()
        let observer = RotationObserver(accelerometer: try ReplayAccelerometer(input: .file(motion)))
        try await session.follow(observer)
        await observer.waitForSourceEnd()
        await eventually("\(recording.urls.map(\.lastPathComponent)) \(recording.rollOverFailures)") { recording.segments.count == 4 }
        let framesAtSplit = recording.progress.frames
        await eventually("12 more frames recorded (\(recording.progress.frames - framesAtSplit))") { recording.progress.frames >= framesAtSplit + 12 }
        let facts = try await recording.stop()
        await session.close()

        XCTAssertEqual(recording.urls.map(\.lastPathComponent), ["turns.mp4", "turns-2.mp4", "turns-3.mp4", "turns-4.mp4"])
        XCTAssertEqual(facts.segments?.map(\.orientation), [0, 90, 180, 270])
        let angles = try checkSegments(recording, facts, tee)
        XCTAssertEqual(angles, [.degrees0, .degrees90, .degrees180, .degrees270])
        XCTAssertEqual(recording.rollOverFailures, [])
        // The facts JSON lists every file.
        let json = try JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any]
        XCTAssertEqual((json?["segments"] as? [[String: Any]])?.compactMap { $0["file"] as? String },
                       recording.urls.map(\.path))
        // Each file is long enough to be a real part of the recording (about 600 ms at 30 fps).
        for file in facts.segments!.dropFirst().dropLast() {
            XCTAssertEqual(Double(file.frames), 18, accuracy: 8, "\(file.file)")
        }
    }

    /// `RecordingOptions.length` counts over every file: 2 s at 30 fps are 60 frames in all,
    /// however late the stop comes, and the files still follow each other frame for frame.
    func testTheLengthCountsOverEveryFile() async throws {
        let dir = try temporaryDirectory(self)
        var options = splitting
        options.length = .seconds(2)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        let tee = try await TeeFrames(session)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("two.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        await eventually("21 frames recorded before the turn") { recording.progress.frames >= 21 }
        await session.setRotation(.degrees90)
        try await recording.lengthReached()
        try await Task.sleep(for: .milliseconds(500))  // the thing tested: the recording holds its length while frames go on
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.segments?.map(\.orientation), [0, 90], recording.rollOverFailures.joined(separator: "; "))
        XCTAssertEqual(facts.frames, 60)
        XCTAssertEqual(facts.seconds, 2, accuracy: 0.001)
        try checkSegments(recording, facts, tee)
    }

    /// A timed roll (`CaptureSession.rollOver(_:to:)`, `plumb serve`'s segments) and a turn
    /// yield the same kind of segment: each is the next file of the one recording, listed in
    /// its `segments` and its facts, starts on a keyframe, carries its angle (ffprobe,
    /// exiftool), and takes over from the previous file on the next frame.
    func testATimedRollAndATurnYieldTheSameKindOfSegments() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        addTeardownBlock { await session.close() }
        let tee = try await TeeFrames(session)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("one.mp4"), options: splitting)
        _ = try await recording.firstFrameTime()
        try await session.waitForFrames(20, timeout: .seconds(30))
        _ = try await session.rollOver(recording, to: dir.appendingPathComponent("two.mp4"))
        try await session.waitForFrames(20, timeout: .seconds(30))
        await session.setRotation(.degrees90)
        await eventually("the turn rolled the recording over: \(recording.urls.map(\.lastPathComponent)) "
                         + recording.rollOverFailures.joined(separator: "; "), timeout: .seconds(30)) { recording.segments.count == 3 }
        try await session.waitForFrames(20, timeout: .seconds(30))
        let facts = try await recording.stop()
        XCTAssertEqual(recording.urls.map(\.lastPathComponent), ["one.mp4", "two.mp4", "two-2.mp4"],
                       "the timed file and the turned one are segments of the same recording")
        XCTAssertEqual(facts.segments?.map { URL(fileURLWithPath: $0.file).lastPathComponent }, ["one.mp4", "two.mp4", "two-2.mp4"])
        XCTAssertEqual(facts.segments?.map(\.orientation), [0, 0, 90])
        XCTAssertEqual(try checkSegments(recording, facts, tee).map { $0?.degrees ?? 0 }, [0, 0, 90])
    }

    /// Angles changing faster than files can be made: the recording ends in a file at the
    /// final angle, and still no frame is lost or doubled.
    func testAStormEndsOnTheFinalAngleWithoutLosingAFrame() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let tee = try await TeeFrames(session)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("storm.mp4"), options: splitting)
        _ = try await recording.firstFrameTime()
        for angle in [RotationAngle.degrees90, .degrees180, .degrees270, .degrees0, .degrees90, .degrees180] {
            await session.setRotation(angle)
        }
        await eventually("\(recording.segments.map(\.latchedRotation))") { recording.segments.last?.latchedRotation == .degrees180 }
        let framesAtSplit = recording.progress.frames
        await eventually("9 more frames recorded (\(recording.progress.frames - framesAtSplit))") { recording.progress.frames >= framesAtSplit + 9 }
        let facts = try await recording.stop()
        await session.close()
        XCTAssertGreaterThanOrEqual(recording.segments.count, 2)
        XCTAssertLessThanOrEqual(recording.segments.count, 7)
        let angles = try checkSegments(recording, facts, tee)
        XCTAssertEqual(angles.last, .degrees180)
        XCTAssertEqual(angles.first, .degrees0)
    }

    /// A file already named like the next segment is never replaced: the split takes the next free name.
    func testASplitNeverReplacesAnExistingFile() async throws {
        let dir = try temporaryDirectory(self)
        let taken = dir.appendingPathComponent("keep-2.mp4")
        try Data("someone else's recording".utf8).write(to: taken)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let tee = try await TeeFrames(session)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("keep.mp4"), options: splitting)
        _ = try await recording.firstFrameTime()
        await session.setRotation(.degrees270)
        await eventually("a second segment") { recording.segments.count == 2 }
        let framesAtSplit = recording.progress.frames
        await eventually("6 more frames recorded (\(recording.progress.frames - framesAtSplit))") { recording.progress.frames >= framesAtSplit + 6 }
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(recording.urls.map(\.lastPathComponent), ["keep.mp4", "keep-3.mp4"])
        XCTAssertEqual(try String(contentsOf: taken, encoding: .utf8), "someone else's recording")
        XCTAssertEqual(try checkSegments(recording, facts, tee), [.degrees0, .degrees270])
    }

    /// Burn-in and split together: each file's pixels are turned by its own angle (a quarter
    /// turn swaps the size) and none carries rotation metadata.
    func testBurntInFilesSplitToo() async throws {
        let dir = try temporaryDirectory(self)
        var options = splitting
        options.burnIn = true
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let recording = try await session.startRecording(to: dir.appendingPathComponent("burnt.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        await session.setRotation(.degrees90)
        await eventually("a second segment: \(recording.rollOverFailures)") { recording.segments.count == 2 }
        let framesAtSplit = recording.progress.frames
        await eventually("9 more frames recorded (\(recording.progress.frames - framesAtSplit))") { recording.progress.frames >= framesAtSplit + 9 }
        let facts = try await recording.stop()
        await session.close()
        XCTAssertEqual(facts.segments?.map(\.burnedIn), [0, 90])
        for (url, (width, height)) in zip(recording.urls, [(320, 240), (240, 320)]) {
            let probe = try XCTUnwrap(Probe.read(url))
            XCTAssertEqual(probe.width, width, url.lastPathComponent)
            XCTAssertEqual(probe.height, height, url.lastPathComponent)
            XCTAssertEqual(try IndependentReaders.ffprobeRotation(url.path), 0)
        }
    }

    /// Without the option a turn changes nothing in a running recording (one file, the angle
    /// of its start); closing the session in the middle of a split leaves every file finalized.
    func testNoSplitWithoutTheOptionAndClosingMidSplitFinalizesEveryFile() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let plain = try await session.startRecording(to: dir.appendingPathComponent("one.mp4"))
        let turning = try await session.startRecording(to: dir.appendingPathComponent("two.mp4"), options: splitting)
        _ = try await plain.firstFrameTime()
        _ = try await turning.firstFrameTime()
        await session.setRotation(.degrees90)
        let framesAtTurn = turning.progress.frames
        await eventually("9 frames recorded after the turn") { turning.progress.frames >= framesAtTurn + 9 }
        await session.setRotation(.degrees180)
        await session.close()  // possibly while the second split waits for its frame
        let one = try await plain.stop()
        let two = try await turning.stop()
        XCTAssertEqual(plain.segments.count, 1)
        XCTAssertEqual(one.orientation, 0)
        XCTAssertNil(one.segments)
        XCTAssertGreaterThanOrEqual(turning.segments.count, 2)
        for (segment, facts) in zip(turning.segments, two.segments ?? [two]) {
            let probe = try XCTUnwrap(Probe.read(segment.url), segment.url.lastPathComponent)
            XCTAssertEqual(probe.frames, facts.frames, segment.url.lastPathComponent)
            XCTAssertEqual(try IndependentReaders.exiftool("Rotation", segment.url.path), facts.orientation)
        }
        // No stray empty file from a split that could not happen.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(Set(files), Set(["one.mp4"] + turning.urls.map(\.lastPathComponent)), "\(files)")
    }
}
