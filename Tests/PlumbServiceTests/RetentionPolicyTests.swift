import Foundation
import Plumb
import XCTest
@testable import PlumbService

/// `RetentionPolicy` on its own: which files it chooses, in which order, for which limit.
final class RetentionPolicyTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let disk = RetentionPolicy.Disk(total: 100_000, free: 50_000)

    /// A file of `bytes` last written `age` seconds before `now`.
    private func file(_ name: String, _ bytes: Int64, age: TimeInterval) -> RetentionPolicy.File {
        RetentionPolicy.File(name: name, kind: RecordingKind(fileName: name), bytes: bytes, modified: now - age)
    }

    private func names(_ d: [RetentionPolicy.Deletion]) -> [String] { d.map(\.file.name) }

    func testOldestGoFirstByModificationTimeNotByName() {
        let policy = RetentionPolicy(maxBytes: 2500, minFree: .bytes(0))
        // Named by a wall clock that jumped: the name that sorts last was written first.
        let files = [file("2026-01-01T00-00-00Z.mp4", 1000, age: 10), file("2099-01-01T00-00-00Z.mp4", 1000, age: 300),
                     file("1970-01-01T00-00-05Z.mp4", 1000, age: 100), file("1970-01-01T00-00-09Z.mp4", 1000, age: 5)]
        let d = policy.deletions(of: files, inUse: [], disk: disk, now: now)
        XCTAssertEqual(names(d), ["2099-01-01T00-00-00Z.mp4", "1970-01-01T00-00-05Z.mp4"])
        XCTAssertEqual(d.map(\.reason), [.maxBytes, .maxBytes])
    }

    func testNothingIsDeletedWithinTheLimits() {
        let policy = RetentionPolicy(maxBytes: 5000, minFree: .bytes(10_000), maxAge: .seconds(3600))
        let files = [file("a.mp4", 1000, age: 10), file("b.jpg", 1000, age: 20)]
        XCTAssertEqual(policy.deletions(of: files, inUse: [], disk: disk, now: now), [])
        XCTAssertEqual(RetentionPolicy(minFree: .bytes(0)).deletions(of: files, inUse: [], disk: disk, now: now), [],
                       "no limits: nothing goes")
    }

    func testTheFileInUseIsNeverDeletedEvenWhenItIsTheOldest() {
        let policy = RetentionPolicy(maxBytes: 1000, minFree: .bytes(0))
        let files = [file("writing.mp4", 5000, age: 1000), file("old.mp4", 1000, age: 500), file("new.mp4", 1000, age: 1)]
        let d = policy.deletions(of: files, inUse: ["writing.mp4"], disk: disk, now: now)
        XCTAssertEqual(names(d), ["old.mp4", "new.mp4"], "everything else goes, the limit still unmet")
        XCTAssertFalse(names(d).contains("writing.mp4"))
    }

    func testOnlyTheAllowedKindsAreDeleted() {
        let policy = RetentionPolicy(maxBytes: 1, minFree: .bytes(0), kinds: [.segment, .event])
        let files = [file("a.jpg", 100, age: 90), file("clip-a.mp4", 100, age: 80), file("event-a.mp4", 100, age: 70),
                     file("b.mp4", 100, age: 60), file("b.jpeg", 100, age: 50)]
        XCTAssertEqual(names(policy.deletions(of: files, inUse: [], disk: disk, now: now)), ["event-a.mp4", "b.mp4"])
        let none = RetentionPolicy(maxBytes: 1, minFree: .bytes(0), kinds: [])
        XCTAssertEqual(none.deletions(of: files, inUse: [], disk: disk, now: now), [])
    }

    func testHiddenAndOtherFilesCountButAreNeverDeleted() {
        let policy = RetentionPolicy(maxBytes: 1500, minFree: .bytes(0))
        let files = [file(".clip-1234.mp4", 1000, age: 900), file(".x.jpg.tmp", 1000, age: 800), file("notes.txt", 10, age: 700),
                     file("a.mp4", 1000, age: 10)]
        XCTAssertNil(files[0].kind)
        XCTAssertNil(files[1].kind)
        XCTAssertNil(files[2].kind)
        XCTAssertEqual(names(policy.deletions(of: files, inUse: [], disk: disk, now: now)), ["a.mp4"],
                       "the hidden files count towards max-bytes; only the recording may go")
    }

    func testMaxAgeDeletesWhatIsOlderAndNothingYounger() {
        let policy = RetentionPolicy(minFree: .bytes(0), maxAge: .seconds(3600))
        let files = [file("old.mp4", 10, age: 7200), file("older.jpg", 10, age: 90_000), file("young.mp4", 10, age: 3500),
                     file("future.mp4", 10, age: -86_400)]
        let d = policy.deletions(of: files, inUse: [], disk: disk, now: now)
        XCTAssertEqual(names(d), ["older.jpg", "old.mp4"])
        XCTAssertEqual(d.map(\.reason), [.maxAge, .maxAge])
    }

    func testMinFreeDeletesUntilTheDiskHasRoomCountingBlocks() {
        let policy = RetentionPolicy(minFree: .bytes(60_000))
        var a = file("a.mp4", 4000, age: 30), b = file("b.mp4", 4000, age: 20)
        a.allocated = 8192
        b.allocated = 8192
        let files = [a, b, file("c.mp4", 4000, age: 10)]
        // 50 000 free, 60 000 wanted: two files of 8 KiB blocks give 66 384.
        let d = policy.deletions(of: files, inUse: [], disk: disk, now: now)
        XCTAssertEqual(names(d), ["a.mp4", "b.mp4"])
        XCTAssertEqual(d.map(\.reason), [.minFree, .minFree])
    }

    func testPercentageOfTheDisk() {
        XCTAssertEqual(RetentionPolicy.FreeSpace.percent(5).bytes(ofDiskSized: 32 << 30), 1_717_986_919, "rounded up")
        XCTAssertEqual(RetentionPolicy.FreeSpace.percent(12.5).bytes(ofDiskSized: 1000), 125)
        XCTAssertEqual(RetentionPolicy.FreeSpace.bytes(7).bytes(ofDiskSized: 1000), 7)
        // 60% of a 100 000-byte disk is 60 000: with 50 000 free, the oldest go until 60 000 are free.
        let policy = RetentionPolicy(minFree: .percent(60))
        let files = [file("a.mp4", 6000, age: 30), file("b.mp4", 6000, age: 20), file("c.mp4", 6000, age: 10)]
        XCTAssertEqual(names(policy.deletions(of: files, inUse: [], disk: disk, now: now)), ["a.mp4", "b.mp4"])
        XCTAssertEqual(RetentionPolicy().minFree, .percent(5), "the default keeps 5% free")
    }

    func testReasonsFollowTheLimitStillUnmet() {
        // Over max-bytes first, then short of free space.
        let policy = RetentionPolicy(maxBytes: 9000, minFree: .bytes(53_000))
        let files = [file("a.mp4", 1000, age: 40), file("b.mp4", 1000, age: 30), file("c.mp4", 1000, age: 20),
                     file("d.mp4", 7000, age: 10)]
        let d = policy.deletions(of: files, inUse: [], disk: disk, now: now)
        XCTAssertEqual(names(d), ["a.mp4", "b.mp4", "c.mp4"])
        XCTAssertEqual(d.map(\.reason), [.maxBytes, .minFree, .minFree])
    }

    func testKindsByName() {
        XCTAssertEqual(RecordingKind(fileName: "2026-11-29T21-04-05Z.mp4"), .segment)
        XCTAssertEqual(RecordingKind(fileName: "2026-11-29T21-04-05Z-2.MP4"), .segment)
        XCTAssertEqual(RecordingKind(fileName: "clip-2026-11-29T21-04-05Z.mp4"), .clip)
        XCTAssertEqual(RecordingKind(fileName: "event-2026-11-29T21-04-05Z.mp4"), .event)
        XCTAssertEqual(RecordingKind(fileName: "2026-11-29T21-04-05Z.jpg"), .still)
        XCTAssertEqual(RecordingKind(fileName: "x.jpeg"), .still)
        for other in [".clip-0000.mp4", ".hidden.jpg", "a.mp4.tmp", "damaged", "x.mkv", "README"] {
            XCTAssertNil(RecordingKind(fileName: other), other)
        }
    }

    func testFilesInUseNameEveryRegisteredPathUntilDone() {
        let inUse = FilesInUse()
        let one = inUse.register(path: "/r/a.mp4")
        let paths = ["/r/b.mp4"]
        let many = inUse.register { paths + ["/r/c.mp4"] }
        XCTAssertEqual(inUse.names, ["a.mp4", "b.mp4", "c.mp4"])
        one.done()
        one.done()
        XCTAssertEqual(inUse.names, ["b.mp4", "c.mp4"])
        many.done()
        XCTAssertEqual(inUse.names, [])
    }

    /// Event clips tell the registry through the engine's `EventFileTracker`.
    func testEventClipsRegisterTheirFileWhileItIsWritten() {
        let inUse = FilesInUse()
        let tracker: any EventFileTracker = inUse
        tracker.inUse("/r/.event-tmp-event-1.mp4")
        tracker.inUse("/r/.event-tmp-event-2.mp4")
        XCTAssertEqual(inUse.names, [".event-tmp-event-1.mp4", ".event-tmp-event-2.mp4"])
        tracker.released("/r/.event-tmp-event-1.mp4")
        tracker.released("/r/.event-tmp-event-1.mp4")
        XCTAssertEqual(inUse.names, [".event-tmp-event-2.mp4"])
        tracker.released("/r/.event-tmp-event-2.mp4")
        XCTAssertEqual(inUse.names, [])
    }

    // MARK: The config keys

    func testTheKeysParse() throws {
        let c = try ServeConfig.parse(text: """
            [recording]
            max-bytes = 20G
            min-free-bytes = 2.5%
            max-age = 7d
            retention-kinds = segment, still
            """)
        XCTAssertEqual(c.recording.retention, RetentionPolicy(maxBytes: 20 << 30, minFree: .percent(2.5),
                                                              maxAge: .seconds(7 * 86_400), kinds: [.segment, .still]))
        let d = try ServeConfig.parse(text: "[recording]\nmin-free-bytes = 512M\nretention-kinds = none\n")
        XCTAssertEqual(d.recording.minFreeBytes, .bytes(512 << 20))
        XCTAssertEqual(d.recording.retentionKinds, [])
        let defaults = ServeConfig().recording.retention
        XCTAssertEqual(defaults, RetentionPolicy(maxBytes: 0, minFree: .percent(5), maxAge: .zero,
                                                 kinds: [.segment, .clip, .event, .still]))
        // Written back, each reads to itself.
        var e = ServeConfig()
        e.recording.maxBytes = 1536 << 20
        e.recording.minFreeBytes = .percent(7.5)
        e.recording.maxAge = .seconds(90 * 60)
        e.recording.retentionKinds = [.clip, .event]
        XCTAssertEqual(try ServeConfig.parse(text: e.iniText()), e)
        XCTAssertTrue(e.iniText().contains("retention-kinds=clip,event"), e.iniText())
    }

    func testBadValuesNameTheGroupAndKey() {
        for (key, bad) in [("max-bytes", "lots"), ("max-bytes", "-5M"), ("min-free-bytes", "100%"), ("min-free-bytes", "-1%"),
                           ("min-free-bytes", "%"), ("min-free-bytes", "5 %"), ("min-free-bytes", "big"), ("max-age", "1w"),
                           ("max-age", "-1d"), ("retention-kinds", "segments"), ("retention-kinds", "segment,,still"),
                           ("retention-kinds", "")] {
            XCTAssertThrowsError(try ServeConfig.parse(text: "[recording]\n\(key) = \(bad)\n"), "\(key) = \(bad)") { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("[recording] \(key)"), text)
                XCTAssertTrue(text.contains("expected"), text)
            }
        }
    }
}
