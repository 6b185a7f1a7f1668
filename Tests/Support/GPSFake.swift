import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd fed by `gpsfake` (Debian's gpsd-clients) from an NMEA log in Tests/Fixtures/gps,
/// on a loopback port of its own (a ReservedPort, held while the test runs, so gpsd restarted
/// on it finds it free): never 2947, so a system gpsd (Debian's socket unit) neither
/// interferes nor is disturbed. Stopped on `stop()` and when the test ends, pass or
/// fail: gpsd first (by its process id, which gpsfake holds as its child), then gpsfake.
public final class GPSFake: @unchecked Sendable {
    /// The log the tests replay: a receiver standing still in Buenos Aires, 3D fixes.
    public static let log = PlumbProcess.root.appendingPathComponent("Tests/Fixtures/gps/buenos-aires-3d.nmea")
    /// Where that log says the receiver is.
    public static let latitude = -34.608_63
    public static let longitude = -58.382_3
    public static let altitude = 25.3
    /// Its date (the GPS time of a replayed log is years old).
    public static let exifDate = "2019:03:14"

    /// The release of the gpsd installed here, as its VERSION message gives it ("3.22" on
    /// Debian 12, "3.25" on Debian 13): from `gpsd -V`, "gpsd: 3.22 (revision 3.22)".
    public static let release: String = {
        let r = try? PlumbProcess.run(URL(fileURLWithPath: "/usr/sbin/gpsd"), ["-V"])
        let words = (r?.stdout ?? "").split(separator: " ")
        return words.count > 1 ? String(words[1]) : "unknown"
    }()

    public let port: UInt16
    /// The port held for this gpsd, when none was given (gpsd binds with SO_REUSEADDR, so it
    /// binds while the port is held).
    private let reserved: ReservedPort?
    private let process: Process
    private let output: Pipe
    private var stopped = false

    /// Starts gpsfake on `port` (a ReservedPort when nil) replaying `log`, one sentence every
    /// `cycle` seconds, over and over, or once with `once`. Returns when gpsd listens.
    public init(_ test: XCTestCase, log: URL = GPSFake.log, port: UInt16? = nil, cycle: Double = 0.1,
                once: Bool = false) throws {
        reserved = port == nil ? try ReservedPort(test) : nil
        let chosen = port ?? reserved!.port
        self.port = chosen
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        // -n: gpsd reads the log from the start, without waiting for a client; -q: quiet.
        process.arguments = ["-n", "-q", "-P", String(chosen), "-c", String(cycle)] + (once ? ["-1"] : []) + [log.path]
        output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        PlumbProcess.watchExit(process)
        try process.run()
        test.addTeardownBlock { [self] in stop() }
        let process = process
        eventually("gpsfake to start gpsd on port \(chosen)", every: .milliseconds(50)) {
            Self.accepts(chosen) || !process.isRunning
        }
        guard Self.accepts(chosen) else {
            stop()
            throw ToolError("gpsfake did not start gpsd on port \(chosen): \(collected())")
        }
    }

    deinit { stop() }

    /// gpsd's process id (gpsfake's child), while it runs.
    public var gpsdPID: pid_t? {
        let pid = process.processIdentifier
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return nil }
        return text.split(separator: " ").compactMap { pid_t($0) }.first
    }

    /// Stops gpsd and gpsfake (which exits once its gpsd is gone); idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        if let gpsd = gpsdPID { kill(gpsd, SIGTERM) }
        if !PlumbProcess.waitForExit(process, timeout: 5) {
            if let gpsd = gpsdPID { kill(gpsd, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? output.fileHandleForReading.close()
    }

    /// What gpsfake said, for failure messages (only once it has stopped).
    private func collected() -> String {
        String(decoding: (try? output.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The mode of the fix gpsd holds now (0 to 3; nil before its receiver has reported),
    /// asked as any client would: a connection of its own, `?WATCH` then `?POLL;`, gpsd's
    /// POLL answer read with JSONSerialization (none of Plumb's code). nil on any failure.
    public func heldFixMode() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A read that waits longer than this fails (a guard against a hang, not a timing check).
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = Loopback.connect(fd, port: port)
        let request = Array("?WATCH={\"enable\":true};\n?POLL;\n".utf8)
        guard connected, send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            for line in received.split(separator: UInt8(ascii: "\n")) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                      object["class"] as? String == "POLL" else { continue }
                let fixes = object["tpv"] as? [[String: Any]] ?? []
                return fixes.compactMap { $0["mode"] as? Int }.max()
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            received += chunk[..<n]
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return Loopback.connect(fd, port: port)
    }
}
