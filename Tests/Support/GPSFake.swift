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
///
/// gpsfake hands gpsd its receiver (a pty) once, through gpsd's control socket, as soon as
/// the socket's file exists, and does not check that gpsd took it. It can be lost two ways,
/// and then gpsd answers every client but never reports a fix (a CI run's "no fix within
/// 30 s" with gpsd connected): the file is `$TMPDIR/gpsfake-PID.sock` and gpsd 3.22 leaves it
/// behind when it exits, so a gpsfake that gets an old one's process id finds its file and
/// asks before its own gpsd listens; and gpsd creates the file with bind(2) before it
/// listens. So each GPSFake gives gpsfake a TMPDIR of its own, and hands gpsd the receiver
/// again until gpsd lists it (gpsd answers "ERROR" to a second request: it has it).
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
    /// gpsfake's TMPDIR, where gpsd's control socket is.
    private let scratch: URL
    private var stopped = false

    /// Starts gpsfake on `port` (a ReservedPort when nil) replaying `log`, one sentence every
    /// `cycle` seconds, over and over, or once with `once`. With `nowait` (gpsd's -n) gpsd
    /// reads its receiver from the start; without, as Debian's gpsd runs by default, only
    /// while a client watches. `gpsdHome` is a folder holding the `gpsd` gpsfake runs instead
    /// of /usr/sbin's (its GPSD_HOME). Returns when gpsd listens and has its receiver.
    public init(_ test: XCTestCase, log: URL = GPSFake.log, port: UInt16? = nil, cycle: Double = 0.1,
                once: Bool = false, nowait: Bool = true, gpsdHome: URL? = nil) throws {
        reserved = port == nil ? try ReservedPort(test) : nil
        let chosen = port ?? reserved!.port
        self.port = chosen
        scratch = try temporaryDirectory(test, "gpsfake")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        // -n: gpsd reads the log from the start, without waiting for a client; -q: quiet.
        process.arguments = (nowait ? ["-n"] : []) + ["-q", "-P", String(chosen), "-c", String(cycle)]
            + (once ? ["-1"] : []) + [log.path]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        if let gpsdHome { environment["GPSD_HOME"] = gpsdHome.path }
        process.environment = environment
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
        var receiver: String?
        eventually("gpsfake to open its receiver's pty", every: .milliseconds(50)) {
            receiver = receiverPTY
            return receiver != nil || !process.isRunning
        }
        var listed = false
        if let receiver {
            eventually("gpsd to list gpsfake's receiver \(receiver)", every: .milliseconds(100)) {
                listed = devices()?.contains(receiver) == true
                if !listed { handGPSD(receiver) }
                return listed || !process.isRunning
            }
        }
        guard listed else {
            stop()
            throw ToolError("gpsd on port \(chosen) never had gpsfake's receiver \(receiver ?? "(no pty)"): \(collected())")
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
        guard let poll = ask("?WATCH={\"enable\":true};\n?POLL;\n", answer: "POLL") else { return nil }
        let fixes = poll["tpv"] as? [[String: Any]] ?? []
        return fixes.compactMap { $0["mode"] as? Int }.max()
    }

    /// The receivers gpsd has (`?DEVICES;`: their paths), without watching; nil on any failure.
    public func devices() -> [String]? {
        guard let answer = ask("?DEVICES;\n", answer: "DEVICES") else { return nil }
        return (answer["devices"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    /// Sends `request` to gpsd on a connection of its own and returns the first answer of the
    /// class `answer`, read with JSONSerialization; nil on any failure.
    private func ask(_ request: String, answer: String) -> [String: Any]? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // A read that waits longer than this fails (a guard against a hang, not a timing check).
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = Loopback.connect(fd, port: port)
        let bytes = Array(request.utf8)
        guard connected, send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            for line in received.split(separator: UInt8(ascii: "\n")) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                      object["class"] as? String == answer else { continue }
                return object
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            received += chunk[..<n]
        }
    }

    /// The pty gpsfake feeds the log into, once it has opened it: the /dev/pts/N it holds that
    /// it made readable and writable by all, for gpsd (it also holds a pair it opened first,
    /// to check that ptys work, left with devpts' own mode).
    private var receiverPTY: String? {
        let pid = process.processIdentifier
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let ptys = fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .filter { $0.hasPrefix("/dev/pts/") }
        return ptys.first { path in
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & 0o777 == 0o666
        }
    }

    /// Hands gpsd the receiver at `pty` through its control socket, as gpsfake does
    /// (`+PATH`); gpsd answers OK, or ERROR when it has it already. False when gpsd could
    /// not be asked.
    @discardableResult
    private func handGPSD(_ pty: String) -> Bool {
        let path = scratch.appendingPathComponent("gpsfake-\(process.processIdentifier).sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.utf8.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: path.utf8) }
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        let request = Array("+\(pty)\r\n\0".utf8)
        guard connected, send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        var reply = [UInt8](repeating: 0, count: 12)
        return recv(fd, &reply, reply.count, 0) > 0
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return Loopback.connect(fd, port: port)
    }
}
