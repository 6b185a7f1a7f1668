import Foundation
import PlumbTestSupport
@testable import PlumbService
import XCTest

final class EventClipsTests: XCTestCase {
    /// A clip of the same second still under its temporary name holds its name: the next
    /// clip gets another, so no rename can replace a finished clip.
    func testANewClipNeverTakesTheNameOfOneStillBeingWritten() throws {
        let dir = try temporaryDirectory(self)
        let folder = RecordingsFolder(dir.path)
        let date = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08-00-00Z
        let first = EventClips.newClip(in: folder, date: date)
        XCTAssertEqual(first.target.lastPathComponent, "event-2027-01-15T08-00-00Z.mp4")
        XCTAssertEqual(first.temporary.lastPathComponent, ".event-tmp-event-2027-01-15T08-00-00Z.mp4")
        // Being written: only the temporary file exists.
        XCTAssertTrue(FileManager.default.createFile(atPath: first.temporary.path, contents: Data([1])))
        let second = EventClips.newClip(in: folder, date: date)
        XCTAssertEqual(second.target.lastPathComponent, "event-2027-01-15T08-00-00Z-2.mp4")
        XCTAssertEqual(second.temporary.lastPathComponent, ".event-tmp-event-2027-01-15T08-00-00Z-2.mp4")
        // The first finished (renamed), the second still written: the third takes neither.
        XCTAssertEqual(rename(first.temporary.path, first.target.path), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: second.temporary.path, contents: Data([1])))
        XCTAssertEqual(EventClips.newClip(in: folder, date: date).target.lastPathComponent,
                       "event-2027-01-15T08-00-00Z-3.mp4")
    }

    /// `POST /event?post-seconds=N`: a number of seconds from 0 to max-seconds, else 400.
    func testPostSecondsIsANumberUpToMaxSeconds() throws {
        XCTAssertNil(try EventClips.postSeconds(nil, max: 300))
        XCTAssertEqual(try EventClips.postSeconds("0", max: 300), 0)
        XCTAssertEqual(try EventClips.postSeconds("2.5", max: 300), 2.5)
        XCTAssertEqual(try EventClips.postSeconds("300", max: 300), 300)
        for bad in ["-1", "301", "", "ten", "1e2", "nan", "inf", " 5"] {
            XCTAssertThrowsError(try EventClips.postSeconds(bad, max: 300), bad) { error in
                guard case APIError.badRequest(let message) = error else { return XCTFail("\(bad): \(error)") }
                XCTAssertTrue(message.contains("post-seconds=\(bad)") && message.contains("max-seconds"), message)
            }
        }
    }
}
