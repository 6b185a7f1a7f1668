import Foundation
import GLib
import Soup
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on a raw TCP socket: what curl hides — reusing one
/// connection for several requests, hanging up at any point, sending half a request
/// or an oversized head. Use it off the cooperative pool (`onThread`): it blocks.
final class RawConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw Failure(description: "not a JSON object: \(text)")
            }
            return object
        }
    }

    private(set) var fd: Int32
    /// Bytes received but not yet consumed by a read.
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; every later read or write gives up after `timeout` seconds.
    init(port: UInt16, timeout: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "connect to port \(port): \(why)")
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Whether the server still takes bytes: false once it closed or reset the connection.
    func isOpenForWriting() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
    }

    /// A request with `Host` and, for a body, `Content-Length`; keep-alive unless `close`.
    func request(_ method: String, _ path: String, body: Data = Data(), headers: [String] = [],
                 close: Bool = false) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for h in headers { head += h + "\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        if close { head += "Connection: close\r\n" }
        try send(Data((head + "\r\n").utf8) + body)
        return try readResponse(head: method == "HEAD")
    }

    /// One response: its head, then a Content-Length or chunked body (none after HEAD).
    func readResponse(head isHead: Bool = false) throws -> Response {
        let (status, headers) = try readHead()
        var body = Data()
        if isHead {
        } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil(Data("\r\n".utf8))
                let size = Int(String(decoding: pending[0..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                pending.removeFirst(lineEnd + 2)
                try fill(size + 2)
                body.append(contentsOf: pending[0..<size])
                pending.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = headers["Content-Length"].flatMap(Int.init) {
            try fill(length)
            body = Data(pending[0..<length])
            pending.removeFirst(length)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads a response's head and whatever body bytes came with it (a stream that
    /// does not end, like server-sent events); returns the status.
    func readHead() throws -> (status: Int, headers: HTTPHeaders) {
        let headEnd = try readUntil(Data("\r\n\r\n".utf8))
        let head = String(decoding: pending[0..<headEnd], as: UTF8.self)
        pending.removeFirst(headEnd + 4)
        return try Self.parse(head: head)
    }

    private static func parse(head: String) throws -> (status: Int, headers: HTTPHeaders) {
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "not an HTTP status line: \(head.prefix(80))")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    /// Takes the bytes received past what was parsed (body bytes that came with the
    /// head): a caller that reads the socket itself must count them.
    func takeBuffered() -> [UInt8] {
        defer { pending.removeAll() }
        return pending
    }

    /// Reads until `marker` is among the received bytes; returns its offset.
    @discardableResult
    func readUntil(_ marker: Data) throws -> Int {
        let marker = [UInt8](marker)
        while true {
            if pending.count >= marker.count,
               let at = (0...(pending.count - marker.count)).first(where: { pending[$0..<($0 + marker.count)].elementsEqual(marker) }) {
                return at
            }
            guard try receive() > 0 else { throw Failure(description: "the server closed the connection") }
        }
    }

    /// Whether the server closes the connection (end of stream or reset) within the
    /// socket's timeout; whatever else arrives meanwhile is dropped.
    func waitForClose() -> Bool {
        while true {
            do {
                if try receive() == 0 { return true }
            } catch {
                return errno == ECONNRESET || errno == EPIPE
            }
            pending.removeAll()
        }
    }

    private func fill(_ count: Int) throws {
        while pending.count < count {
            guard try receive() > 0 else { throw Failure(description: "the server closed the connection mid-body") }
        }
    }

    /// One recv: the byte count, 0 at the end of the stream.
    private func receive() throws -> Int {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n >= 0 else { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        pending.append(contentsOf: buffer[0..<n])
        return n
    }
}

/// Runs blocking work on a thread of its own and awaits it, so the cooperative pool
/// stays free for the server's handlers.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// The resident set size of this process (VmRSS), in bytes.
func residentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
        return kb * 1024
    }
    return 0
}
