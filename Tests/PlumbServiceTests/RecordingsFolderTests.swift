import Foundation
import PlumbTestSupport
@testable import PlumbService
import XCTest

final class RecordingsFolderTests: XCTestCase {
    /// A restart within the second of a crash: the file the repair moved to damaged/ keeps
    /// its name to itself, so the new run's file is never mistaken for it.
    func testANewFileNeverTakesTheNameOfOneInDamaged() throws {
        let dir = try temporaryDirectory(self)
        let folder = RecordingsFolder(dir.path)
        let date = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08-00-00Z
        let first = folder.newFile(extension: "mp4", date: date)
        XCTAssertEqual((first as NSString).lastPathComponent, "2027-01-15T08-00-00Z.mp4")
        let damaged = dir.appendingPathComponent("damaged")
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: false)
        try Data([1]).write(to: damaged.appendingPathComponent("2027-01-15T08-00-00Z.mp4"))
        XCTAssertEqual((folder.newFile(extension: "mp4", date: date) as NSString).lastPathComponent,
                       "2027-01-15T08-00-00Z-2.mp4")
        // Both places count: -2 in the folder, -3 in damaged/.
        try Data([1]).write(to: dir.appendingPathComponent("2027-01-15T08-00-00Z-2.mp4"))
        try Data([1]).write(to: damaged.appendingPathComponent("2027-01-15T08-00-00Z-3.mp4"))
        XCTAssertEqual((folder.newFile(extension: "mp4", date: date) as NSString).lastPathComponent,
                       "2027-01-15T08-00-00Z-4.mp4")
        // Another extension is another name.
        XCTAssertEqual((folder.newFile(extension: "jpg", date: date) as NSString).lastPathComponent,
                       "2027-01-15T08-00-00Z.jpg")
    }
}
