import Foundation
import XCTest

/// The Python of `.build/test-venv`, with the PyPI packages the WebRTC tests drive
/// viewers with (aiortc, and selenium for the page in chromium): `make test-venv` makes it once, and this runs that target when
/// a filtered `swift test` comes first.
public enum TestVenv {
    /// `TEST_VENV` (relative to the tree), as the Makefile takes it: `make test-trixie` keeps
    /// Debian 13's venv apart from the host's.
    public static let directory = PlumbProcess.root.appendingPathComponent(
        ProcessInfo.processInfo.environment["TEST_VENV"] ?? ".build/test-venv")

    public static var python: URL { directory.appendingPathComponent("bin/python") }

    /// The venv's python, made if missing; fails the test (throws) when it cannot be made.
    public static func ready(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let check = try PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                         [python.path, "-c", "import aiortc, selenium, virtme_ng"], timeout: 60)
        if check.code == 0 { return python }
        let made = try PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["make", "-s", "-C", PlumbProcess.root.path, "test-venv"], timeout: 600)
        guard made.code == 0 else {
            XCTFail("make test-venv failed: \(made.stderr)", file: file, line: line)
            throw CocoaError(.executableLoad)
        }
        return python
    }

    /// virtme-ng's `vng` (the kernel tests' VM, `KernelVM`), installed by `make test-venv`
    /// when missing; throws when it cannot be.
    public static func vng() throws -> URL {
        let vng = directory.appendingPathComponent("bin/vng")
        if FileManager.default.isExecutableFile(atPath: vng.path) { return vng }
        let made = try PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["make", "-s", "-C", PlumbProcess.root.path, "test-venv"], timeout: 600)
        guard made.code == 0, FileManager.default.isExecutableFile(atPath: vng.path) else {
            throw KernelVM.Failure(description: "make test-venv did not install virtme-ng: \(made.stderr)")
        }
        return vng
    }

    /// A script of Tests/Scripts.
    public static func script(_ name: String) -> URL {
        PlumbProcess.root.appendingPathComponent("Tests/Scripts/\(name)")
    }
}
