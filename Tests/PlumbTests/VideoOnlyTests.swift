import Foundation
import PlumbTestSupport
import XCTest

/// Plumb records video only: no source file may name an audio element, so no sound can
/// ever leak into a recording (the seed's camera rig holds the same line).
final class VideoOnlyTests: XCTestCase {
    /// Audio sources, converters and encoders GStreamer ships, and the raw audio media type.
    static let audioNames = [
        "audiotestsrc", "alsasrc", "pulsesrc", "autoaudiosrc", "osssrc", "jackaudiosrc", "openalsrc",
        "audioconvert", "audioresample", "audiorate", "voaacenc", "avenc_aac", "faac", "fdkaacenc",
        "opusenc", "lamemp3enc", "vorbisenc", "flacenc", "wavenc", "audio/x-raw",
    ]

    func testNoSourceFileNamesAnAudioElement() throws {
        let sources = PlumbProcess.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { ["swift", "c", "h", "pipeline"].contains($0.pathExtension) }
        XCTAssertGreaterThan(files.count, 20, "the sources were not found at \(sources.path)")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8).lowercased()
            for name in Self.audioNames where text.contains(name) {
                found.append("\(file.path.replacingOccurrences(of: sources.path + "/", with: "")): \(name)")
            }
        }
        XCTAssertEqual(found, [], "audio elements named in the sources")
    }
}
