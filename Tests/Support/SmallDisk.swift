import Foundation
import XCTest

/// A real, small file system for a test: a tmpfs of `size` (`mount -o size=`, e.g. "320k")
/// mounted on a fresh folder, so that writes fail with ENOSPC as on a full SD card. Needs
/// root (CAP_SYS_ADMIN), as `make test` has. Unmounted when the test ends, pass or fail —
/// after what the test started later (teardown blocks run last-in, first-out), so a daemon
/// writing there is gone first.
public func mountSmallDisk(_ test: XCTestCase, size: String, file: StaticString = #filePath,
                           line: UInt = #line) throws -> URL {
    let dir = try temporaryDirectory(test)
    let point = dir.appendingPathComponent("small-disk")
    try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
    let mounted = try PlumbProcess.run(PlumbProcess.tool("mount"),
                                       ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "plumb-test", point.path])
    guard mounted.code == 0 else {
        XCTFail("cannot mount a \(size) tmpfs on \(point.path) (this test needs root): \(mounted.stderr)",
                file: file, line: line)
        throw SmallDiskError(description: mounted.stderr)
    }
    test.addTeardownBlock {
        // Lazily if something still holds a file there: the mount must not outlive the test.
        let r = try? PlumbProcess.run(PlumbProcess.tool("umount"), [point.path])
        if r?.code != 0 { _ = try? PlumbProcess.run(PlumbProcess.tool("umount"), ["-l", point.path]) }
    }
    return point
}

public struct SmallDiskError: Error, CustomStringConvertible {
    public var description: String
}
