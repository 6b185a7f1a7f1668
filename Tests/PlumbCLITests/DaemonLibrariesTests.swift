import Foundation
import PlumbTestSupport
import XCTest

/// The libraries only the daemon uses are not mapped by the other commands (issue 26: each
/// costs resident memory in every process that maps it): libsoup, the HTTP server with its
/// TLS, HTTP/2 and Kerberos libraries, is in `plumb-serve` alone (`plumb serve` execs it).
/// Nor is libstdc++ (the Swift runtime's few C++ needs are linked from its archive).
/// Read in /proc/PID/maps of the running programs.
final class DaemonLibrariesTests: XCTestCase {
    /// Read to its end (a /proc file has no size: reading it by its size gives its first page).
    static func maps(_ pid: Int32) -> String {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else { return "" }
        defer { try? file.close() }
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    func testPlumbRunMapsNoLibsoup() throws {
        let dir = try temporaryDirectory(self)
        let description = dir.appendingPathComponent("live.pipeline")
        try "videotestsrc is-live=true ! fakesink\n".write(to: description, atomically: true, encoding: .utf8)
        let (p, out, err) = try PlumbProcess.start(PlumbProcess.binary, ["run", description.path])
        defer {
            if p.isRunning { kill(p.processIdentifier, SIGINT) }
            _ = PlumbProcess.finish(p, out, err, timeout: 60)
        }
        var maps = ""
        eventually("plumb run's pipeline made (videotestsrc's plugin mapped)", timeout: .seconds(60)) {
            maps = Self.maps(p.processIdentifier)
            return maps.contains("libgstvideotestsrc.so") || !p.isRunning
        }
        XCTAssertTrue(maps.contains("libgstreamer-1.0.so"), maps)
        XCTAssertFalse(maps.contains("libsoup-3.0.so"), "plumb run maps libsoup")
        // The Swift runtime's C++ is linked from libstdc++'s archive (Package.swift): the shared
        // library, 0.9 MiB resident, is not loaded.
        XCTAssertFalse(maps.contains("libstdc++.so"), "plumb run maps libstdc++")
    }

    /// `plumb serve` is `plumb-serve` (the same process, exec'd), which maps libsoup.
    func testPlumbServeIsPlumbServeWithLibsoup() throws {
        let serve = try ServeProcess(self)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(serve.pid)/exe")
        XCTAssertEqual(URL(fileURLWithPath: exe).lastPathComponent, "plumb-serve")
        XCTAssertEqual(URL(fileURLWithPath: exe).deletingLastPathComponent().path,
                       PlumbProcess.binary.resolvingSymlinksInPath().deletingLastPathComponent().path)
        XCTAssertTrue(Self.maps(serve.pid).contains("libsoup-3.0.so"), Self.maps(serve.pid))
        XCTAssertEqual(serve.stop().code, 0)
    }
}
