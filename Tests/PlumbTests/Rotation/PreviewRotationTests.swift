import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbDescription
import PlumbTestSupport
import XCTest
import PlumbRotation

/// The preview turned live: caps read at the branch's sink, the first turned frame placed
/// exactly, and the letterbox canvas read pixel by pixel.
final class PreviewRotationTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)
    private let portrait = VideoSize(width: 240, height: 320)

    /// Turns the session and waits until the sink has a frame sure to be turned; returns that turn.
    private func turn(_ session: CaptureSession, _ preview: PreviewOutput, to angle: RotationAngle,
                      file: StaticString = #filePath, line: UInt = #line) async throws -> PreviewOutput.ShownTurn {
        await session.setRotation(angle)
        let turn = try XCTUnwrap(preview.rotator.lastTurn, file: file, line: line)
        XCTAssertEqual(turn.angle, angle, file: file, line: line)
        await eventually("no frame after the turn to \(angle) reached the sink", file: file, line: line) { preview.lastShownTurn?.turn == turn }
        try await session.waitForFrames(3)
        return try XCTUnwrap(preview.lastShownTurn, file: file, line: line)
    }

    /// A quarter turn swaps the width and height at the branch's sink, from the first frame
    /// that entered the flip after the angle was set (or the one before, which was entering
    /// as it changed) — never later. A half turn keeps the size.
    func testAQuarterTurnSwapsTheSinkCapsFromTheFirstFrameAfterIt() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let preview = PreviewOutput()
        try await session.attach(preview)
        try await session.waitForFrames(5)
        let before = await sinkSize(session, preview)
        XCTAssertEqual(before, qvga)

        // 0 -> 90 and 270 -> 0 turn a quarter; 90 -> 270 and 0 -> 180 a half.
        for (angle, size) in [(RotationAngle.degrees90, portrait), (.degrees270, portrait), (.degrees0, qvga),
                              (.degrees180, qvga)] {
            let halfTurn = angle == .degrees270 || angle == .degrees180
            let changesBefore = preview.sizeChanges.count
            let shown = try await turn(session, preview, to: angle)
            let atSink = await sinkSize(session, preview)
            XCTAssertEqual(atSink, size, "caps at the sink after turning to \(angle)")
            XCTAssertEqual(shown.size, size, "the first frame sure to be turned to \(angle)")
            XCTAssertEqual(shown.frame, shown.turn.firstFrame, "every frame reaches the sink, one for one")
            XCTAssertGreaterThan(shown.shownAt, shown.turn.appliedAt)
            let changes = preview.sizeChanges.dropFirst(changesBefore)
            if halfTurn {
                XCTAssertTrue(changes.isEmpty, "a half turn changed the size: \(changes)")
            } else {
                // The size changed once: on the first frame after the turn, or on the one
                // that was entering the flip as the angle changed — never later.
                XCTAssertEqual(changes.map(\.size), [size])
                if let change = changes.first {
                    XCTAssertTrue((shown.turn.firstFrame - 1...shown.turn.firstFrame).contains(change.frame),
                                  "turned at frame \(change.frame), the turn's first frame is \(shown.turn.firstFrame)")
                }
            }
        }
        XCTAssertEqual(preview.sizeChanges.map(\.size), [qvga, portrait, qvga],
                       "one change per quarter turn, none for a half turn")
        await session.close()
    }

    /// In letterbox layout the caps at the sink never change, whatever the angle.
    func testTheLetterboxKeepsTheSinkCapsFixed() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga)
        let preview = PreviewOutput(layout: .letterbox(nil))
        try await session.attach(preview)
        try await session.waitForFrames(5)
        for angle in [RotationAngle.degrees90, .degrees180, .degrees270, .degrees0, .degrees90] {
            let shown = try await turn(session, preview, to: angle)
            let atSink = await sinkSize(session, preview)
            XCTAssertEqual(atSink, qvga, "the canvas changed at \(angle)")
            XCTAssertEqual(shown.size, qvga)
        }
        XCTAssertEqual(preview.sizeChanges.map(\.size), [qvga], "the sink saw one size only")
        // A canvas of its own.
        let wide = PreviewOutput(layout: .letterbox(VideoSize(width: 640, height: 360)))
        try await session.attach(wide)
        try await session.waitForFrames(3)
        let wideSize = await sinkSize(session, wide)
        XCTAssertEqual(wideSize, VideoSize(width: 640, height: 360))
        await session.close()
    }

    /// The turned picture keeps its aspect ratio inside the canvas: black borders left and
    /// right at a quarter turn (a 240x320 picture fitted into 320x240 is 180 wide), none upright.
    func testTheLetterboxFitsTheTurnedPictureBetweenBorders() throws {
        let pipeline = try Pipeline(name: "letterbox")
        let src = try Element(factory: "videotestsrc", name: "src")
        try src.set("pattern", EnumNick("white"))
        let caps = try Element(factory: "capsfilter", name: "caps")
        try caps.set("caps", try Caps("video/x-raw,format=I420,width=320,height=240,framerate=30/1,pixel-aspect-ratio=1/1"))
        let sink = try AppSink(name: "frames")
        try sink.set("sync", false)
        try sink.set("max-buffers", 2)
        let rotator = PreviewRotator(layout: .letterbox(nil))
        rotator.apply(rotation: .degrees90)  // before build: kept for it
        try pipeline.add(src, caps)
        let ends = try rotator.build(in: pipeline, frameSize: qvga)
        try pipeline.add(sink)
        try src.link(to: caps)
        try caps.link(to: ends.entry)
        try ends.exit.link(to: sink)
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }

        /// The luma row 120 of the next frame, and the frame's number (from 1, by its timestamp at 30 fps).
        func middleRow() throws -> (row: [UInt8], frame: Int) {
            let sample = try XCTUnwrap(sink.pull(timeout: .seconds(5)))
            XCTAssertEqual(sample.videoSize?.width, 320)
            XCTAssertEqual(sample.videoSize?.height, 240)
            let buffer = try XCTUnwrap(sample.buffer)
            let frame = Int(((buffer.pts ?? 0) + 1_000_000) / 33_333_333) + 1
            return (Array(buffer.data[(120 * 320)..<(121 * 320)]), frame)
        }
        let row = try middleRow().row
        let black = 0..<40, white = 200..<256
        for x in [0, 30, 65, 255, 290, 319] { XCTAssertTrue(black.contains(Int(row[x])), "x=\(x) is \(row[x]), not a border") }
        for x in [75, 160, 245] { XCTAssertTrue(white.contains(Int(row[x])), "x=\(x) is \(row[x]), not the picture") }
        let pictureWidth = row.filter { white.contains(Int($0)) }.count
        XCTAssertEqual(Double(pictureWidth), 180, accuracy: 4, "the picture lost its aspect ratio")

        rotator.apply(rotation: .degrees0)
        let firstTurned = try XCTUnwrap(rotator.lastTurn).firstFrame
        // Frames already past the flip are still letterboxed; from the first after the turn on, no border.
        var next = try middleRow()
        while next.frame < firstTurned { next = try middleRow() }
        XCTAssertTrue(next.row.allSatisfy { white.contains(Int($0)) }, "frame \(next.frame): an upright picture fills the canvas")
    }

    /// The rotator's elements in gst-launch syntax are real: they parse into a pipeline; names
    /// follow the prefix (`preview_flip` is the role description files use); a bad canvas is refused.
    func testTheRotatorDescribesItselfAndRefusesABadCanvas() throws {
        let rotator = PreviewRotator(layout: .letterbox(VideoSize(width: 640, height: 360)), namePrefix: "preview_")
        let text = rotator.launchDescription()
        XCTAssertTrue(text.hasPrefix("videoflip name=preview_flip video-direction=identity ! videoscale"), text)
        XCTAssertNoThrow(try Pipeline.parse("videotestsrc num-buffers=1 ! \(text) ! fakesink"))
        let bin = try Bin(name: "b")
        _ = try rotator.build(in: bin)
        XCTAssertEqual(bin.children.map(\.name).sorted(), ["preview_canvas", "preview_flip", "preview_scale"])
        XCTAssertEqual(ElementRole.of(elementName: "preview_flip"), .previewFlip)

        for canvas in [VideoSize(width: 641, height: 360), VideoSize(width: 0, height: 2)] {
            XCTAssertThrowsError(try PreviewRotator(layout: .letterbox(canvas)).build(in: try Bin())) { error in
                XCTAssertTrue("\(error)".contains("even, positive"), "\(error)")
            }
        }
        XCTAssertThrowsError(try PreviewRotator(layout: .letterbox(nil)).build(in: try Bin())) { error in
            XCTAssertTrue("\(error)".contains("canvas size"), "\(error)")
        }
    }
}
