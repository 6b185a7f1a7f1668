import Foundation
import PlumbTestSupport
import GStreamer
@testable import Plumb
import XCTest

/// The encoded preview branch: its settings, its rotation, its letterbox.
final class PreviewEncodingTests: XCTestCase {
    private func size(of caps: Caps?) -> (Int, Int)? {
        guard let s = caps?.structure(at: 0), let w = s.int("width"), let h = s.int("height") else { return nil }
        return (w, h)
    }

    /// Runs a 320x240 source, turns the preview a quarter turn, and returns the encoded
    /// size before and after.
    private func sizesAroundAQuarterTurn(canvas: VideoSize?) throws -> (before: (Int, Int)?, after: (Int, Int)?) {
        let source = try PreviewTestSource(encoding: PreviewEncoding(keyframeInterval: 30, canvas: canvas))
        defer { source.stop() }
        try source.start()
        eventually("source.stream.statistics.frames >= 5", timeout: .seconds(10)) { source.stream.statistics.frames >= 5 }
        let before = size(of: source.stream.caps)
        try source.apply(rotation: .degrees90)
        let framesAtTurn = source.stream.statistics.frames
        eventually("source.stream.statistics.frames >= framesAtTurn + 15", timeout: .seconds(10)) { source.stream.statistics.frames >= framesAtTurn + 15 }
        let after = size(of: source.stream.caps)
        XCTAssertEqual(source.errors, [])
        return (before, after)
    }

    func testAQuarterTurnSwapsTheStreamSize() throws {
        let (before, after) = try sizesAroundAQuarterTurn(canvas: nil)
        XCTAssertEqual(before?.0, 320)
        XCTAssertEqual(before?.1, 240)
        XCTAssertEqual(after?.0, 240, "the turned preview is portrait")
        XCTAssertEqual(after?.1, 320)
    }

    func testTheLetterboxKeepsItsCanvasWhenTurned() throws {
        let (before, after) = try sizesAroundAQuarterTurn(canvas: VideoSize(width: 320, height: 240))
        XCTAssertEqual(before?.0, 320)
        XCTAssertEqual(before?.1, 240)
        XCTAssertEqual(after?.0, 320, "the canvas must not change with the rotation")
        XCTAssertEqual(after?.1, 240)
    }

    func testTheBranchIsTheDocumentedOne() throws {
        let encoding = PreviewEncoding(bitrate: 800, keyframeInterval: 45, canvas: VideoSize(width: 640, height: 360))
        let bin = try Bin(name: "preview")
        let branch = try encoding.build(in: bin)
        XCTAssertEqual(bin.children.map(\.name).sorted(), ["preview_canvas", "preview_convert", "preview_encoder", "preview_flip",
                                                       "preview_format", "preview_parse", "preview_profile", "preview_scale",
                                                       "preview_sink"])
        XCTAssertEqual(branch.choice.encoder, "x264enc")
        XCTAssertEqual(try branch.encoder.get("bitrate", as: Int.self), 800)
        XCTAssertEqual(try branch.encoder.get("key-int-max", as: Int.self), 45)
        XCTAssertEqual(try branch.encoder.get("speed-preset", as: EnumNick.self), "ultrafast")
        XCTAssertEqual(try branch.encoder.get("tune", as: String.self), "zerolatency")
        XCTAssertEqual(branch.entry.name, "preview_flip")
        XCTAssertTrue(encoding.launchDescription.contains("x264enc tune=zerolatency speed-preset=ultrafast key-int-max=45 bitrate=800"),
                      encoding.launchDescription)
        // The description is real gst-launch syntax: it parses into a pipeline of its own.
        XCTAssertNoThrow(try Pipeline.parse("videotestsrc num-buffers=1 ! " + encoding.launchDescription))
    }

    func testBadSettingsSayWhatToUse() throws {
        let bin = try Bin(name: "preview")
        for (encoding, hint) in [(PreviewEncoding(bitrate: 0), "1 to 2048000"),
                                 (PreviewEncoding(keyframeInterval: 0), "1 or more"),
                                 (PreviewEncoding(canvas: VideoSize(width: 641, height: 360)), "even, positive")] {
            XCTAssertThrowsError(try encoding.build(in: bin)) { error in
                XCTAssertTrue("\(error)".contains(hint), "\(error)")
            }
        }
        XCTAssertEqual(bin.children.count, 0, "nothing is added when the settings are refused")
    }
}
