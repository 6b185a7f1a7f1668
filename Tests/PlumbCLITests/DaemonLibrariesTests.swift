import Foundation
import PlumbTestSupport
import XCTest

/// The libraries only the daemon uses are not mapped by the other commands (issue 26: each
/// costs resident memory in every process that maps it): libsoup, the HTTP server with its
/// TLS, HTTP/2 and Kerberos libraries, is in `plumb-serve` alone (`plumb serve` execs it), as is
/// gst-rtsp-server (the RTSP preview). Nor are libstdc++ and libzbar, linked from their archives,
/// nor what libzbar.so would load (libdbus with libsystemd, X11, libv4l).
/// Read in /proc/PID/maps of the running programs.
final class DaemonLibrariesTests: XCTestCase {
    /// Read to its end (a /proc file has no size: reading it by its size gives its first page).
    static func maps(_ pid: Int32) -> String {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else { return "" }
        defer { try? file.close() }
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    func testPlumbRunMapsNoLibraryOnlyTheDaemonOrNothingUses() throws {
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
        XCTAssertFalse(maps.contains("libgstrtspserver-1.0.so"), "plumb run maps gst-rtsp-server")
        // GIO is loaded for D-Bus alone (CGioShim), libgstsdp for WHEP alone (WebRTC.c); the
        // unwinder comes from libgcc's archive.
        for library in ["libgio-2.0.so", "libgstsdp-1.0.so", "libmount.so", "libgcc_s.so"] {
            XCTAssertFalse(maps.contains(library), "plumb run maps \(library)")
        }
        // zbar's scanner is linked from libzbar.a, its D-Bus announcing left out (CZBarShim.c).
        for library in ["libzbar.so", "libdbus-1.so", "libsystemd.so", "libX11.so", "libv4l2.so"] {
            XCTAssertFalse(maps.contains(library), "plumb run maps \(library)")
        }
    }

    /// GIO, not linked, is loaded when D-Bus is first used: `plumb rotation --accelerometer
    /// sensor-proxy` on a private bus asks it for iio-sensor-proxy (which is not there) through
    /// GDBus, with libgio mapped then.
    func testGIOIsLoadedWhenDBusIsFirstUsed() throws {
        let bus = try PrivateBus(self)
        let (p, out, err) = try PlumbProcess.start(PlumbProcess.binary, ["rotation", "--accelerometer", "sensor-proxy"],
                                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer {
            if p.isRunning { kill(p.processIdentifier, SIGINT) }
            _ = PlumbProcess.finish(p, out, err, timeout: 60)
        }
        // The bus's answer: the name has no owner. Only GDBus, connected, could have learnt it.
        let said = PlumbProcess.waitFor("iio-sensor-proxy is not running", in: out, timeout: 60)
        XCTAssertNotNil(said, "plumb rotation never heard from the bus")
        XCTAssertTrue(p.isRunning, "plumb rotation ended instead of waiting for the proxy")
        XCTAssertTrue(Self.maps(p.processIdentifier).contains("libgio-2.0.so"), Self.maps(p.processIdentifier))
    }

    /// `plumb serve` is `plumb-serve` (the same process, exec'd), which maps libsoup.
    func testPlumbServeIsPlumbServeWithLibsoup() throws {
        let serve = try ServeProcess(self)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(serve.pid)/exe")
        XCTAssertEqual(URL(fileURLWithPath: exe).lastPathComponent, "plumb-serve")
        XCTAssertEqual(URL(fileURLWithPath: exe).deletingLastPathComponent().path,
                       PlumbProcess.binary.resolvingSymlinksInPath().deletingLastPathComponent().path)
        XCTAssertTrue(Self.maps(serve.pid).contains("libsoup-3.0.so"), Self.maps(serve.pid))
        XCTAssertTrue(Self.maps(serve.pid).contains("libgstrtspserver-1.0.so"), Self.maps(serve.pid))
        XCTAssertEqual(serve.stop().code, 0)
    }
}
