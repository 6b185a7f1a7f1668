import Foundation
import PlumbMedia
import PlumbTestSupport
import XCTest
import PlumbRotation

/// Plumb's MP4 reader and patcher on real files from mp4mux and ffmpeg, checked against ffprobe and exiftool.
final class MP4FileTests: XCTestCase {
    /// The mp4mux modes Plumb records in.
    static let modes: [(name: String, properties: String, fragmented: Bool)] = [
        ("plain", "", false),
        ("fragmented", "fragment-duration=200", true),
        ("first-moov-then-finalise", "fragment-duration=200 fragment-mode=first-moov-then-finalise", false),
    ]

    private func check(_ path: String, reads angle: RotationAngle, fragmented: Bool? = nil, version: UInt8? = nil,
                       _ label: String, line: UInt = #line) throws {
        let plumb = try MediaInspector.inspect(path: path)
        XCTAssertEqual(plumb.container, .mp4, label, line: line)
        XCTAssertEqual(plumb.rotation, angle, "Plumb, \(label)", line: line)
        XCTAssertEqual(plumb.matrix, TrackMatrix(rotation: angle), label, line: line)
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", path), angle.degrees, "exiftool, \(label)", line: line)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(path), angle, "ffprobe, \(label)", line: line)
        XCTAssertEqual(try IndependentReaders.ffprobePacketCount(path), 30, "still playable, \(label)", line: line)
        let info = try MP4File.inspect(path: path)
        if let fragmented { XCTAssertEqual(info.isFragmented, fragmented, label, line: line) }
        if let version { XCTAssertEqual(info.videoTrack?.headerVersion, version, label, line: line) }
    }

    func testPatchedRecordingsAgreeWithFfprobeAndExiftoolInEveryMode() throws {
        let dir = try temporaryDirectory(self)
        for mode in Self.modes {
            let base = dir.appendingPathComponent("\(mode.name).mp4").path
            try MuxedRecording.mp4(base, muxer: mode.properties)
            try check(base, reads: .degrees0, fragmented: mode.fragmented, version: 0, "\(mode.name) as muxed")
            for angle in RotationAngle.allCases {
                let path = dir.appendingPathComponent("\(mode.name)-\(angle.degrees).mp4").path
                try FileManager.default.copyItem(atPath: base, toPath: path)
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                XCTAssertEqual(try MP4MatrixWriter.rewrite(fileAt: path, rotation: angle), 1)
                XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size)
                try check(path, reads: angle, fragmented: mode.fragmented, "\(mode.name) at \(angle)")
            }
        }
    }

    /// The frames a file holds, by Plumb and by ffprobe decoding it: whole files in every
    /// mode, and fragmented files cut anywhere (a disk that filled up, a power cut), where
    /// only whole samples count.
    func testVideoSampleCountAgreesWithFfprobeOnWholeAndCutFiles() throws {
        let dir = try temporaryDirectory(self)
        for mode in Self.modes {
            let path = dir.appendingPathComponent("\(mode.name).mp4").path
            try MuxedRecording.mp4(path, muxer: mode.properties, frames: 45)
            XCTAssertEqual(try MP4File.videoSampleCount(path: path), 45, mode.name)
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(path), 45, mode.name)
        }
        // Unfinished fragmented files, as a failed write leaves them (streamable: mp4mux never
        // goes back to finalize the file), cut at 11 places and all through a moof.
        for (name, properties) in [("dash", "fragment-duration=200 fragment-mode=dash-or-mss"),
                                   ("finalise", "fragment-duration=200 fragment-mode=first-moov-then-finalise")] {
            let whole = dir.appendingPathComponent("\(name)-whole.mp4").path
            try MuxedRecording.mp4(whole, muxer: properties + " streamable=true", frames: 90)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
            let moofs = try MP4File.inspect(path: whole).boxes.filter { $0.type == "moof" }
            // (first-moov-then-finalise ends, at EOS, as one mdat and a moov: no moof to cut.)
            if name == "dash" { XCTAssertGreaterThanOrEqual(moofs.count, 3, "\(name): \(moofs)") }
            let cuts = (1...11).map { (bytes.count * $0 / 12, "\($0)/12") }
                + moofs.dropFirst().prefix(1).flatMap { moof in
                    stride(from: moof.offset + 1, to: moof.end, by: 11).map { ($0, "\($0 - moof.offset) bytes into a moof") }
                }
            for (length, place) in cuts {
                let label = "\(name) cut at \(place) (\(length) of \(bytes.count) bytes)"
                let cut = dir.appendingPathComponent("\(name)-cut.mp4").path
                try bytes.prefix(length).write(to: URL(fileURLWithPath: cut))
                // ffmpeg reads nothing at all of a file that ends inside a moof: there, what
                // it reads of the file up to that moof is what the cut file holds whole.
                let torn = moofs.first { $0.offset < length && length < $0.end }
                let reference = dir.appendingPathComponent("\(name)-reference.mp4").path
                try bytes.prefix(torn?.offset ?? length).write(to: URL(fileURLWithPath: reference))
                let plumb = try MP4File.videoSampleCount(path: cut)
                let ffprobe = try IndependentReaders.ffprobeFrameCount(reference)
                XCTAssertEqual(plumb, ffprobe, label)
                if torn != nil { XCTAssertGreaterThan(ffprobe, 0, label) }
            }
        }
    }

    /// A fragment header a failed write cut short (a full disk) is cut off, and then ffprobe
    /// reads every whole fragment before it; a file cut anywhere else is left byte for byte.
    func testATornFragmentHeaderIsCutOffAndTheWholeFragmentsPlay() throws {
        let dir = try temporaryDirectory(self)
        let whole = dir.appendingPathComponent("whole.mp4").path
        try MuxedRecording.mp4(whole, muxer: "fragment-duration=200 fragment-mode=dash-or-mss streamable=true", frames: 90)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let boxes = try MP4File.inspect(path: whole).boxes
        let moofs = boxes.filter { $0.type == "moof" }
        XCTAssertGreaterThanOrEqual(moofs.count, 3, "\(boxes)")
        guard moofs.count >= 3 else { return }

        let reference = dir.appendingPathComponent("reference.mp4").path
        try bytes.prefix(moofs[2].offset).write(to: URL(fileURLWithPath: reference))
        let expected = try IndependentReaders.ffprobeFrameCount(reference)
        XCTAssertGreaterThan(expected, 0)
        // Cut all through the moof, from its whole header on (fewer bytes do not say what box
        // they start; they hide no frame either): ffmpeg reads nothing of most of these.
        var asCut: [Int] = []
        let torn = dir.appendingPathComponent("torn.mp4").path
        for length in stride(from: moofs[2].offset + 8, to: moofs[2].end, by: 7) {
            try bytes.prefix(length).write(to: URL(fileURLWithPath: torn))
            asCut.append(try IndependentReaders.ffprobeFrameCount(torn))
            let label = "torn \(length - moofs[2].offset) bytes into a \(moofs[2].size)-byte moof"
            XCTAssertEqual(try MP4File.trimTornFragment(path: torn), length - moofs[2].offset, label)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: torn)), bytes.prefix(moofs[2].offset), label)
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(torn), expected, label)
            XCTAssertEqual(try MP4File.videoSampleCount(path: torn), expected, label)
            XCTAssertNil(try MP4File.trimTornFragment(path: torn), "a second trim finds nothing to cut, \(label)")
        }
        print("frames ffprobe reads of a file torn inside a moof, untrimmed: \(asCut); trimmed: \(expected)")

        let mdat = try XCTUnwrap(boxes.first { $0.type == "mdat" && $0.offset > moofs[1].offset })
        for (name, length) in [("whole", bytes.count), ("mid-mdat", mdat.offset + mdat.size / 2), ("after-moof", moofs[1].end),
                               ("mid-mdat-header", mdat.offset + 4)] {
            let path = dir.appendingPathComponent("\(name).mp4").path
            if name != "whole" { try bytes.prefix(length).write(to: URL(fileURLWithPath: path)) }
            XCTAssertNil(try MP4File.trimTornFragment(path: path), name)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes.prefix(length), name)
        }
        XCTAssertThrowsError(try MP4File.trimTornFragment(path: dir.appendingPathComponent("missing.mp4").path))
    }

    func testVersion1TrackHeadersFromAnotherMuxer() throws {
        let dir = try temporaryDirectory(self)
        let source = dir.appendingPathComponent("source.mp4").path
        try MuxedRecording.mp4(source, muxer: "")
        // ffmpeg writes 64-bit (version 1) headers when the duration needs them, and always for ISM.
        let variants: [(String, [String], Bool)] = [
            ("long-timescale.mp4", ["-movie_timescale", "2147483647"], false),
            ("smooth.ismv", ["-f", "ismv"], true),
        ]
        for (name, options, fragmented) in variants {
            let base = dir.appendingPathComponent(name).path
            try runTool("ffmpeg", ["-v", "error", "-y", "-i", source, "-c", "copy"] + options + [base])
            try check(base, reads: .degrees0, fragmented: fragmented, version: 1, "\(name) as muxed")
            for angle in RotationAngle.allCases {
                let path = dir.appendingPathComponent("\(angle.degrees)-\(name)").path
                try FileManager.default.copyItem(atPath: base, toPath: path)
                XCTAssertEqual(try MP4MatrixWriter.rewrite(fileAt: path, rotation: angle), 1)
                try check(path, reads: angle, fragmented: fragmented, version: 1, "\(name) at \(angle)")
            }
        }
    }

    func testAnAudioOnlyFileHasNothingToOrient() throws {
        let path = try temporaryDirectory(self).appendingPathComponent("audio.mp4").path
        try IndependentReaders.gstLaunch("audiotestsrc num-buffers=10 ! avenc_aac ! aacparse ! mp4mux ! filesink location=\(path)")
        XCTAssertEqual(try MP4File.inspect(path: path).tracks.map(\.handler), ["soun"])
        XCTAssertThrowsError(try MP4MatrixWriter.rewrite(fileAt: path, rotation: .degrees90)) { error in
            XCTAssertEqual(error as? MediaError, .noVideoTrack(path: path))
        }
        XCTAssertThrowsError(try MediaInspector.inspect(path: path))
    }
}
