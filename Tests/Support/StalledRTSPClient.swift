import Foundation

/// A consumer that stops reading: DESCRIBE, SETUP with RTP interleaved on the RTSP
/// connection, PLAY, over a plain TCP socket with a small receive buffer — then it reads
/// nothing more, as a frozen player or a dead network path would.
public final class StalledRTSPClient {
    private let fd: Int32
    /// The client's own port: the server knows it by 127.0.0.1:localPort.
    public let localPort: Int

    /// `url` is rtsp://127.0.0.1:PORT/PATH.
    public init(_ url: String, receiveBuffer: Int32 = 4096) throws {
        guard let parsed = URL(string: url), let port = parsed.port else { throw StalledClientError("bad URL \(url)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size = receiveBuffer
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 15, tv_usec: 0)  // a hang guard for the requests
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Loopback.connect(fd, port: UInt16(port)) else {
            close(fd)
            throw StalledClientError("cannot connect to \(url): errno \(errno)")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        localPort = Int(UInt16(bigEndian: local.sin_port))
        do {
            let (_, sdp) = try request("DESCRIBE \(url) RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n\r\n")
            // The video stream's control attribute (the session-level one is "*").
            let media = sdp.components(separatedBy: "m=video").dropFirst().first ?? ""
            let control = media.split(separator: "\r\n").first { $0.hasPrefix("a=control:") }
                .map { String($0.dropFirst("a=control:".count)) } ?? "stream=0"
            let track = control.hasPrefix("rtsp://") ? control : "\(url)/\(control)"
            let (setup, _) = try request("SETUP \(track) RTSP/1.0\r\nCSeq: 2\r\n"
                                         + "Transport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n")
            guard let sessionLine = setup.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("session:") })
            else { throw StalledClientError("SETUP was refused: \(setup)") }
            let session = sessionLine.dropFirst("session:".count).split(separator: ";")[0]
                .trimmingCharacters(in: .whitespaces)
            let (play, _) = try request("PLAY \(url) RTSP/1.0\r\nCSeq: 3\r\nSession: \(session)\r\n\r\n")
            guard play.hasPrefix("RTSP/1.0 200") else { throw StalledClientError("PLAY was refused: \(play)") }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// Sends a request and reads its response: the header and the body (Content-Length).
    private func request(_ text: String) throws -> (header: String, body: String) {
        let bytes = Array(text.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw StalledClientError("send failed: errno \(errno)") }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        func headerEnd() -> Int? {
            guard data.count >= 4 else { return nil }
            return (0...(data.count - 4)).first { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10 }
        }
        while headerEnd() == nil {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw StalledClientError("no response to \(text.prefix { $0 != " " })") }
            data += buffer[0..<n]
        }
        let end = headerEnd()!
        let header = String(decoding: data[0..<end], as: UTF8.self)
        let length = header.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while data.count < end + 4 + length {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw StalledClientError("the response body was cut short") }
            data += buffer[0..<n]
        }
        return (header, String(decoding: data[(end + 4)..<(end + 4 + length)], as: UTF8.self))
    }

    /// Reads (and drops) what is left until the server's close or reset reaches the
    /// socket: true when it did within `timeout`. Reading ends the stall, so only ask
    /// once the server is expected to have given up.
    public func waitForServerClose(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var t = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { return true }
        }
        return false
    }
}

public struct StalledClientError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
