import Foundation
import PlumbTestSupport
import XCTest

/// `make install DESTDIR=... PREFIX=/usr` lays out the binary, the pipelines, the example
/// config, a config in /etc and the systemd unit; the unit passes `systemd-analyze verify`
/// and the installed binary reads the installed config.
final class ServeInstallTests: XCTestCase {
    func testMakeInstallLaysOutAServiceThatSystemdAccepts() throws {
        let stage = try temporaryDirectory(self)
        // SWIFT=true: the binary under test is installed as it is (no second build).
        let r = try PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/make"), [
            "-C", PlumbProcess.root.path, "install", "DESTDIR=\(stage.path)", "PREFIX=/usr", "SWIFT=true",
            "PLUMB=\(PlumbProcess.binary.path)",
        ], timeout: 120)
        XCTAssertEqual(r.code, 0, r.stdout + r.stderr)

        let binary = stage.appendingPathComponent("usr/bin/plumb")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary.path))
        for file in ["usr/share/plumb/pipelines/test-preview.pipeline", "usr/share/plumb/plumb.example.ini",
                     "etc/plumb/plumb.ini", "usr/lib/systemd/system/plumb.service"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: stage.appendingPathComponent(file).path), file)
        }
        let unitFile = stage.appendingPathComponent("usr/lib/systemd/system/plumb.service")
        let unit = try String(contentsOf: unitFile, encoding: .utf8)
        let keys = Dictionary(unit.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> (String, String)? in
            guard let eq = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<eq]), String(line[line.index(after: eq)...]))
        }, uniquingKeysWith: { $1 })
        XCTAssertEqual(keys["ExecStart"], "/usr/bin/plumb serve --config /etc/plumb/plumb.ini")
        XCTAssertEqual(keys["Type"], "notify")
        XCTAssertEqual(keys["NotifyAccess"], "main")
        XCTAssertEqual(keys["WatchdogSec"], "30")
        XCTAssertEqual(keys["Environment"], "MALLOC_ARENA_MAX=2")
        XCTAssertEqual(keys["KillSignal"], "SIGTERM")
        XCTAssertEqual(keys["Restart"], "on-failure")
        XCTAssertNotNil(keys["TimeoutStopSec"])
        XCTAssertEqual(keys["WantedBy"], "multi-user.target")

        // systemd's own checker (the Makefile installs systemd), with ExecStart pointing at the staged binary.
        let analyze = PlumbProcess.tool("systemd-analyze")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: analyze.path), "no systemd-analyze: run make deps")
        let copy = stage.appendingPathComponent("verify/plumb.service")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try unit.replacingOccurrences(of: "/usr/bin/plumb", with: binary.path).write(to: copy, atomically: true, encoding: .utf8)
        let verify = try PlumbProcess.run(analyze, ["verify", "--man=no", copy.path])
        XCTAssertEqual(verify.code, 0, verify.stderr)
        XCTAssertEqual(verify.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "systemd-analyze verify: \(verify.stderr)")

        // The installed binary reads the installed config (the example: every key at its default).
        let printed = try PlumbProcess.run(binary, ["serve", "--config", stage.appendingPathComponent("etc/plumb/plumb.ini").path,
                                                    "--print-config"])
        XCTAssertEqual(printed.code, 0, printed.stderr)

        // A second install keeps the edited config.
        try "[camera]\nfps = 15\n".write(to: stage.appendingPathComponent("etc/plumb/plumb.ini"), atomically: true, encoding: .utf8)
        let again = try PlumbProcess.run(URL(fileURLWithPath: "/usr/bin/make"), [
            "-C", PlumbProcess.root.path, "install", "DESTDIR=\(stage.path)", "PREFIX=/usr", "SWIFT=true",
            "PLUMB=\(PlumbProcess.binary.path)",
        ], timeout: 120)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try String(contentsOf: stage.appendingPathComponent("etc/plumb/plumb.ini"), encoding: .utf8),
                       "[camera]\nfps = 15\n")
    }
}
