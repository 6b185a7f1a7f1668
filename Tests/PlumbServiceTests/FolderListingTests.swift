import Foundation
import PlumbTestSupport
import XCTest
@testable import PlumbService

/// Retention's listing, kept from pass to pass, always says what a listing from scratch
/// says (what `lstat` finds now), while reading the directory only when it changed.
final class FolderListingTests: XCTestCase {
    /// 400 random changes — files come, grow while in use, stop, go, are renamed, turn
    /// into folders or symlinks — each followed by a refresh compared with the folder as
    /// it is; then, once the folder has settled, refreshes that only the file in use changed
    /// read no directory, and the next change is seen at once.
    func testEveryRefreshSaysWhatTheFolderHolds() throws {
        let dir = try temporaryDirectory(self)
        let outside = dir.appendingPathComponent("outside")
        let folder = dir.appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try write(outside.appendingPathComponent("elsewhere.mp4"), bytes: 50)
        for i in 0..<200 { try write(folder.appendingPathComponent("seg-\(i).mp4"), bytes: i, modified: 1_000_000 + Double(i)) }

        var listing = FolderListing(path: folder.path)
        var random = SplitMix64(seed: 7)
        var current: String? = nil
        var serial = 1000
        for step in 0..<400 {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            let pick = names.isEmpty ? nil : names[Int.random(in: 0..<names.count, using: &random)]
            let path = { (name: String) in folder.appendingPathComponent(name) }
            switch Int.random(in: 0..<9, using: &random) {
            case 0, 1:  // the file being written grows, or a new one starts
                if let name = current { try append(path(name), bytes: 1 + Int.random(in: 0..<5000, using: &random)) } else {
                    serial += 1
                    current = "seg-\(serial).mp4"
                    try write(path(current!), bytes: 0)
                }
            case 2: current = nil  // it is finished: no longer in use
            case 3:
                serial += 1
                try write(path("still-\(serial).jpg"), bytes: Int.random(in: 0..<900, using: &random), modified: 1_000_000 + Double(Int.random(in: 0..<5000, using: &random)))
            case 4: if let pick, pick != current { try FileManager.default.removeItem(at: path(pick)) }
            case 5:  // a temporary file renamed to its final name, as clips are saved
                serial += 1
                try write(path(".clip-\(serial).tmp"), bytes: 77)
                try FileManager.default.moveItem(at: path(".clip-\(serial).tmp"), to: path("clip-\(serial).mp4"))
            case 6:
                serial += 1
                try FileManager.default.createSymbolicLink(at: path("link-\(serial).mp4"), withDestinationURL: outside.appendingPathComponent("elsewhere.mp4"))
            case 7: if let pick, pick != current, !pick.hasPrefix("damaged") {  // a file replaced by a folder of that name
                try FileManager.default.removeItem(at: path(pick))
                try FileManager.default.createDirectory(at: path(pick), withIntermediateDirectories: false)
            }
            default:
                try FileManager.default.createDirectory(at: path("damaged"), withIntermediateDirectories: true)
                serial += 1
                try write(path("damaged/seg-\(serial).mp4"), bytes: 10)
            }
            let busy: Set<String> = current.map { [$0] } ?? []
            try assertSame(listing.refresh(busy: busy), folder, "after step \(step)")
        }

        // Settled: the folder's last change is older than the time its times can be trusted to
        // show the next one (FAT's 2 s). The first refresh reads the names once more.
        let name = "seg-\(serial + 1).mp4"
        try write(folder.appendingPathComponent(name), bytes: 0)
        Thread.sleep(forTimeInterval: FolderListing.settleSeconds + 0.3)  // the rule tested is by file age
        _ = listing.refresh(busy: [name])
        let reads = listing.directoryReads
        for round in 0..<5 {
            try append(folder.appendingPathComponent(name), bytes: 1000)
            try assertSame(listing.refresh(busy: [name]), folder, "a settled round \(round)")
        }
        XCTAssertEqual(listing.directoryReads, reads, "refreshes of a folder whose names did not change read its directory")
        try write(folder.appendingPathComponent("still-new.jpg"), bytes: 5)
        try assertSame(listing.refresh(busy: [name]), folder, "a file added to a settled folder")
        XCTAssertEqual(listing.directoryReads, reads + 1)
        // The file in use is written once more and finished before the next pass: its last
        // size is read although nothing has it in use any more.
        try append(folder.appendingPathComponent(name), bytes: 500)
        try assertSame(listing.refresh(busy: []), folder, "a file finished between two refreshes")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("still-new.jpg"))
        try assertSame(listing.refresh(busy: []), folder, "a file deleted")
    }

    /// A file rewritten in place keeps its name and leaves the folder's times as they were:
    /// the periodic full read finds it.
    func testAFileRewrittenInPlaceIsReadWithinTheRereadInterval() throws {
        let folder = try temporaryDirectory(self)
        for i in 0..<20 { try write(folder.appendingPathComponent("seg-\(i).mp4"), bytes: 100, modified: 1_000_000 + Double(i)) }
        Thread.sleep(forTimeInterval: FolderListing.settleSeconds + 0.3)  // the rule tested is by file age
        var listing = FolderListing(path: folder.path, rereadEvery: .milliseconds(500))
        try assertSame(listing.refresh(busy: []), folder, "the first refresh")
        try append(folder.appendingPathComponent("seg-3.mp4"), bytes: 4000)
        Thread.sleep(forTimeInterval: 0.6)  // past the 500 ms reread interval under test
        try assertSame(listing.refresh(busy: []), folder, "after the reread interval")
        XCTAssertEqual(listing.refresh(busy: []).first { $0.name == "seg-3.mp4" }?.bytes, 4100)
    }

    // MARK: helpers

    /// The listing is the folder, in order; a failure names only what differs.
    func assertSame(_ files: [RetentionPolicy.File], _ folder: URL, _ label: String,
                    file: StaticString = #filePath, line: UInt = #line) throws {
        let got = files.map(Entry.init), want = try truth(folder)
        guard got != want else { return }
        let extra = got.filter { !want.contains($0) }, missing = want.filter { !got.contains($0) }
        XCTFail("\(label): the listing has \(extra) that the folder has not, and lacks \(missing)"
                + (extra.isEmpty && missing.isEmpty ? " (out of order)" : ""), file: file, line: line)
    }

    /// What a comparison looks at: the modification time within 2 µs (a Date of today holds
    /// it to a quarter of a microsecond, and FileManager rounds it its own way).
    struct Entry: Equatable, CustomStringConvertible {
        var name: String, bytes: Int64, microseconds: Int64
        init(_ file: RetentionPolicy.File) { self.init(name: file.name, bytes: file.bytes, modified: file.modified) }
        init(name: String, bytes: Int64, modified: Date) {
            (self.name, self.bytes) = (name, bytes)
            microseconds = Int64((modified.timeIntervalSince1970 * 1e6).rounded())
        }
        var description: String { "\(name) \(bytes) \(microseconds)" }
        static func == (a: Entry, b: Entry) -> Bool {
            a.name == b.name && a.bytes == b.bytes && abs(a.microseconds - b.microseconds) <= 2
        }
    }

    /// The folder's regular files now (no symlink, no folder), oldest first.
    func truth(_ folder: URL) throws -> [Entry] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).compactMap { name -> Entry? in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return Entry(name: name, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                         modified: attributes[.modificationDate] as? Date ?? .distantPast)
        }.sorted { ($0.microseconds, $0.name) < ($1.microseconds, $1.name) }
    }

    func write(_ url: URL, bytes: Int, modified: TimeInterval? = nil) throws {
        try Data(count: bytes).write(to: url)
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: url.path)
        }
    }

    func append(_ url: URL, bytes: Int) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: bytes))
    }
}
