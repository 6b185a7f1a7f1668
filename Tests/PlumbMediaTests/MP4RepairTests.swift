import Foundation
import PlumbMedia
import PlumbRotation
import PlumbTestSupport
import XCTest

/// The repair of recordings a crash left, on files made by real pipelines (mp4mux as
/// Plumb records with it) and cut by the test where a crash cuts them, checked with ffprobe,
/// ffmpeg and exiftool.
final class MP4RepairTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try temporaryDirectory(self, "plumb-repair")
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A recording a crash left in its fifth fragment, turned 90 degrees as Plumb writes it
    /// (the matrix in the `moov` the muxer pushes).
    private func crashedRecording(_ name: String, codec: String = "h264") throws -> (path: String, info: MP4FileInfo) {
        let file = path(name)
        try MuxedRecording.crashed(file, writes: 120, codec: codec)
        try MP4MatrixWriter.rewrite(fileAt: file, rotation: .degrees90)
        let info = try MP4File.inspect(path: file)
        XCTAssertTrue(info.isFragmented)
        XCTAssertGreaterThanOrEqual(info.boxes.filter { $0.type == "moof" }.count, 3, "\(info.boxes)")
        return (file, info)
    }

    /// The first `count` bytes of `source` as a new file.
    private func cut(_ source: String, at count: Int, as name: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        XCTAssertLessThanOrEqual(count, data.count)
        try data.prefix(count).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func bytes(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file)) }

    /// What ffprobe and ffmpeg say of a rewritten file: a normal MP4 holding exactly `hashes`
    /// (the frames of the file before), seekable, turned 90 degrees.
    private func checkRepaired(_ file: String, hashes: [String], _ label: String, line: UInt = #line) throws {
        XCTAssertEqual(try IndependentReaders.ffprobeBoxes(file).filter { $0.parent == "root" }.map(\.type),
                       ["ftyp", "mdat", "moov"], label, line: line)
        XCTAssertTrue(try IndependentReaders.isNormalMP4(file), label, line: line)
        XCTAssertEqual(try IndependentReaders.frameHashes(file), hashes, "the same frames, \(label)", line: line)
        let duration = try XCTUnwrap(try IndependentReaders.ffprobeDuration(file), label, line: line)
        XCTAssertEqual(duration, Double(hashes.count) / 30, accuracy: 0.001, label, line: line)
        XCTAssertEqual(try IndependentReaders.exiftool("Rotation", file), 90, label, line: line)
        XCTAssertEqual(try IndependentReaders.ffprobeClockwise(file), .degrees90, label, line: line)
        if duration >= 1 {
            // Keyframes every 0.5 s: a seek to 0.7 s starts reading at the one at 0.5 s.
            XCTAssertEqual(try XCTUnwrap(IndependentReaders.packetTimeAfterSeeking(file, to: 0.7)), 0.5, accuracy: 0.001,
                           label, line: line)
        }
        XCTAssertTrue(try IndependentReaders.ffmpegSeeks(file, to: duration / 2), label, line: line)
    }

    /// The file a crash left (the last fragment's frames without their `moof`), and the
    /// same file cut where a crash cuts it: every whole fragment is kept, in a normal MP4.
    func testFilesCutAfterTheirHeaderKeepTheirWholeFragmentsInANormalSeekableMP4() throws {
        let (crashed, info) = try crashedRecording("crashed.mp4")
        let moov = try XCTUnwrap(info.boxes.first { $0.type == "moov" })
        let moofs = info.boxes.filter { $0.type == "moof" }
        let mdats = info.boxes.filter { $0.type == "mdat" && $0.offset > moov.offset }
        // Where each cut is, and the file ffmpeg reads the frames to keep from: the cut
        // file itself, but for a moof cut mid-write the file up to that moof (ffmpeg reads
        // nothing at all of a file that ends in a cut moof).
        let cuts: [(name: String, bytes: Int, reference: Int)] = [
            ("header-only", moov.end, moov.end),  // the first fragment, indexed in the moov
            ("mid-data", mdats[1].offset + mdats[1].size / 2, mdats[1].offset + mdats[1].size / 2),  // frames, no moof yet
            ("mid-moof", moofs[1].offset + moofs[1].size / 2, moofs[1].offset),  // a moof cut mid-write
            ("after-last-moof", moofs.last!.end, moofs.last!.end),
        ]
        var files = [("as-left", crashed)]
        var before: [String: (hashes: [String], modified: Date)] = ["as-left": (try IndependentReaders.frameHashes(crashed), Date())]
        for c in cuts {
            files.append((c.name, try cut(crashed, at: c.bytes, as: "\(c.name).mp4")))
            let reference = try cut(crashed, at: c.reference, as: "reference.mp4")
            before[c.name] = (try IndependentReaders.frameHashes(reference), Date())
            try FileManager.default.removeItem(atPath: reference)
        }
        for (i, (name, file)) in files.enumerated() {
            XCTAssertGreaterThan(before[name]!.hashes.count, 0, "ffmpeg reads the frames of \(name)")
            let modified = Date(timeIntervalSince1970: 1_800_000_000 + Double(i))
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file)
            before[name]!.modified = modified
            XCTAssertEqual(try MP4Repair.examine(path: file).frames, before[name]!.hashes.count, name)
        }
        print("frames ffmpeg reads of the file cut mid-moof as it is: \(try IndependentReaders.frameHashes(files[3].1).count)")
        XCTAssertEqual(before["header-only"]?.hashes.count, 15)
        XCTAssertEqual(before["mid-data"]?.hashes.count, 30)
        XCTAssertEqual(before["mid-moof"]?.hashes.count, 30)
        XCTAssertEqual(before["after-last-moof"]?.hashes.count, before["as-left"]?.hashes.count)

        let reports = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(reports.count, files.count)
        for (name, file) in files {
            let report = try XCTUnwrap(reports.first { $0.file == "\(URL(fileURLWithPath: file).lastPathComponent)" })
            XCTAssertEqual(report.action, .repaired, "\(name): \(report)")
            XCTAssertEqual(report.frames, before[name]?.hashes.count, name)
            try checkRepaired(file, hashes: before[name]!.hashes, name)
            // Its place in the folder's order by date stays.
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date,
                           before[name]?.modified, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(FolderRepair.damagedFolder)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }, [],
                       "no temporary file left")
        // Done once: a second pass finds normal MP4s and leaves them alone.
        let again = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(Set(again.map(\.action)), [.leftAsIs], "\(again)")
    }

    /// Cut in the first fragment, before mp4mux wrote any `moov`: nothing plays, so the file
    /// goes to damaged/ as it is (never deleted), under a free name; so do an empty file
    /// and one that is not an MP4.
    func testFilesWithNothingPlayableAreMovedToDamagedUntouched() throws {
        let (crashed, info) = try crashedRecording("crashed.mp4")
        let moov = try XCTUnwrap(info.boxes.first { $0.type == "moov" })
        // As a crash in the first second leaves it: the first mdat still "to the end of the file" (size 0).
        var first = try bytes(crashed).prefix(moov.offset)
        first.replaceSubrange(40..<44, with: [0, 0, 0, 0])
        try first.write(to: URL(fileURLWithPath: path("first-second.mp4")))
        _ = try cut(crashed, at: 40 + 8 + 1000, as: "first-kilobyte.mp4")
        _ = try cut(crashed, at: 0, as: "empty.mp4")
        try Data("not a video at all".utf8).write(to: URL(fileURLWithPath: path("notes.mp4")))
        try FileManager.default.removeItem(atPath: crashed)
        try FileManager.default.createDirectory(atPath: path("damaged"), withIntermediateDirectories: false)
        try Data("an earlier one".utf8).write(to: URL(fileURLWithPath: path("damaged/empty.mp4")))
        let names = ["empty.mp4", "first-kilobyte.mp4", "first-second.mp4", "notes.mp4"]
        var original: [String: Data] = [:]
        for name in names {
            original[name] = try bytes(path(name))
            XCTAssertEqual(try IndependentReaders.ffprobeFrameCount(path(name)), 0, "ffprobe plays nothing in \(name)")
            XCTAssertFalse(MP4File.hasMovieHeader(path: path(name)), name)
        }

        let reports = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(reports.map(\.file), names)
        XCTAssertEqual(Set(reports.map(\.action)), [.moved], "\(reports)")
        XCTAssertEqual(reports.map(\.movedTo), ["damaged/empty-2.mp4", "damaged/first-kilobyte.mp4",
                                                "damaged/first-second.mp4", "damaged/notes.mp4"])
        XCTAssertTrue(reports[2].detail.contains("no movie header"), reports[2].detail)
        XCTAssertTrue(reports[0].detail.contains("empty"), reports[0].detail)
        for report in reports {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(report.file)), report.file)
            XCTAssertEqual(try bytes(path(report.movedTo!)), original[report.file], "moved as it was: \(report.file)")
        }
        XCTAssertEqual(try bytes(path("damaged/empty.mp4")), Data("an earlier one".utf8), "nothing replaced in damaged/")
    }

    /// A normal MP4 is not rewritten (bytes and date as they were), and a dry run changes
    /// nothing at all: it only says what it would do.
    func testNormalFilesAndDryRunsChangeNothing() throws {
        try MuxedRecording.finished(path("finished.mp4"), frames: 45)
        let (crashed, info) = try crashedRecording("crashed.mp4")
        _ = try cut(crashed, at: info.boxes.first { $0.type == "moov" }!.offset, as: "first-second.mp4")
        try Data([0x2E]).write(to: URL(fileURLWithPath: path(MP4Repair.temporaryPrefix + "left-by-a-crash.tmp")))
        func snapshot() throws -> [String: (Data, Date)] {
            var result: [String: (Data, Date)] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
                result[name] = (try bytes(path(name)),
                                try FileManager.default.attributesOfItem(atPath: path(name))[.modificationDate] as! Date)
            }
            return result
        }
        let before = try snapshot()

        let planned = try FolderRepair.run(folder: dir.path, options: .init(dryRun: true))
        XCTAssertEqual(planned.map(\.file), ["crashed.mp4", "finished.mp4", "first-second.mp4"])
        XCTAssertEqual(planned.map(\.action), [.repaired, .leftAsIs, .moved])
        XCTAssertEqual(planned.map(\.frames), [try IndependentReaders.ffprobeFrameCount(crashed), 45, 0])
        XCTAssertEqual(planned[2].movedTo, "damaged/first-second.mp4")
        let after = try snapshot()
        XCTAssertEqual(Set(after.keys), Set(before.keys), "a dry run makes, moves and deletes nothing")
        for (name, (data, date)) in before {
            XCTAssertEqual(after[name]?.0, data, name)
            XCTAssertEqual(after[name]?.1, date, name)
        }

        let done = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(done.map(\.action), [.repaired, .leftAsIs, .moved])
        XCTAssertEqual(try bytes(path("finished.mp4")), before["finished.mp4"]?.0, "a normal MP4 is not rewritten")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path("finished.mp4"))[.modificationDate] as? Date,
                       before["finished.mp4"]?.1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(MP4Repair.temporaryPrefix + "left-by-a-crash.tmp")),
                       "a copy a crashed repair left goes")
    }

    /// H.265 recordings are repaired the same way.
    func testAnH265RecordingIsRepaired() throws {
        let (crashed, _) = try crashedRecording("crashed-h265.mp4", codec: "h265")
        let hashes = try IndependentReaders.frameHashes(crashed)
        XCTAssertGreaterThan(hashes.count, 30)
        XCTAssertEqual(try MP4Repair.rewrite(path: crashed), hashes.count)
        try checkRepaired(crashed, hashes: hashes, "h265")
        XCTAssertEqual(try ProbedVideo(URL(fileURLWithPath: crashed)).codec, "hevc")
    }

    /// Only the recordings at the folder's top are looked at: not stills, hidden files
    /// (a clip being sent), links or what is in other folders.
    func testOnlyTheFolderRecordingsAreLookedAt() throws {
        let (crashed, _) = try crashedRecording("crashed.mp4")
        try FileManager.default.createDirectory(atPath: path("sub"), withIntermediateDirectories: false)
        for name in [".clip-1.mp4", "sub/inner.mp4", "still.jpg"] {
            try FileManager.default.copyItem(atPath: crashed, toPath: path(name))
        }
        try FileManager.default.createSymbolicLink(atPath: path("link.mp4"), withDestinationPath: crashed)
        let original = try bytes(crashed)
        let reports = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(reports.map(\.file), ["crashed.mp4"])
        for name in [".clip-1.mp4", "sub/inner.mp4", "still.jpg"] {
            XCTAssertEqual(try bytes(path(name)), original, name)
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("link.mp4")), crashed)
    }

    /// A file that cannot be moved where it should go is left where it was, and said.
    func testAFileThatCannotBeMovedIsLeftAndReported() throws {
        try Data().write(to: URL(fileURLWithPath: path("empty.mp4")))
        try Data("a file in the way".utf8).write(to: URL(fileURLWithPath: path("damaged")))
        let reports = try FolderRepair.run(folder: dir.path)
        XCTAssertEqual(reports.map(\.action), [.failed])
        XCTAssertTrue(reports[0].detail.contains("is not a folder"), reports[0].detail)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("empty.mp4")))
    }

    /// The folder lock keeps a second holder out until the first lets go.
    func testTheFolderLockIsExclusive() throws {
        var lock = try FolderLock.acquire(dir.path)
        XCTAssertNotNil(lock)
        XCTAssertThrowsError(try FolderLock.acquire(dir.path)) { error in
            XCTAssertTrue("\(error)".contains("in use by another plumb process"), "\(error)")
        }
        lock = nil
        XCTAssertNotNil(try FolderLock.acquire(dir.path), "released with its holder")
    }
}

private extension MP4Repair.State {
    var frames: Int {
        switch self {
        case .normal(let frames), .repairable(let frames, _): return frames
        case .unplayable: return 0
        }
    }
}
