import Foundation
import Synchronization

/// `ffmpeg -v warning` as a consumer of an RTSP stream: reads it for `seconds`, decodes
/// every frame (`-f null`), and prints nothing on stderr unless something is wrong — a
/// damaged frame, timestamps that go back, lost packets. The frame count comes from
/// `-progress` on stdout, so stderr holds only ffmpeg's warnings.
public final class FFmpegViewer: @unchecked Sendable {  // driven by one test thread
    public struct Result {
        /// Everything ffmpeg printed on stderr: empty when all was well.
        public var warnings: String
        /// Frames decoded.
        public var frames: Int
        public var code: Int32
    }

    public let transport: String
    private let process: Process
    private let err: Pipe
    /// ffmpeg's `-progress` lines so far (it writes them every half second), read as they come.
    private let progress = Progress()
    private final class Progress: Sendable { let text = Mutex("") }
    private let progressRead = DispatchGroup()

    /// `transport` is tcp (RTP interleaved on the RTSP connection) or udp.
    public init(_ url: String, transport: String, seconds: Int = 10) throws {
        self.transport = transport
        // Over UDP, a receive buffer as players take (VLC asks for 2 MiB and more): with
        // ffmpeg's default, a loaded machine that leaves it unscheduled for a moment drops
        // datagrams in its own kernel socket, and it warns of a missing reference picture.
        let buffer = transport == "udp" ? ["-buffer_size", "4194304"] : []
        let out: Pipe
        (process, out, err) = try PlumbProcess.start(PlumbProcess.tool("ffmpeg"), [
            "-nostdin", "-v", "warning", "-progress", "pipe:1", "-rtsp_transport", transport,
        ] + buffer + ["-i", url, "-t", "\(seconds)", "-f", "null", "-"])
        let progress = self.progress, reading = out.fileHandleForReading
        progressRead.enter()
        DispatchQueue.global().async { [progressRead] in
            while case let chunk = reading.availableData, !chunk.isEmpty {
                progress.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            progressRead.leave()
        }
    }

    /// Frames decoded so far, by ffmpeg's latest progress report (every half second).
    public var frames: Int { Self.lastFrameCount(progress.text.withLock { $0 }) }

    private static func lastFrameCount(_ progress: String) -> Int {
        progress.split(separator: "\n").last { $0.hasPrefix("frame=") }.flatMap { Int($0.dropFirst("frame=".count)) } ?? 0
    }

    /// Still reading (it stops after `seconds` of stream, or when the stream ends).
    public var isRunning: Bool { process.isRunning }

    public func finish(timeout: TimeInterval) -> Result {
        // stdout is read above; `finish` gets an empty pipe in its place.
        let none = Pipe()
        try? none.fileHandleForWriting.close()
        let r = PlumbProcess.finish(process, none, err, timeout: timeout)
        progressRead.wait()
        return Result(warnings: r.stderr, frames: Self.lastFrameCount(progress.text.withLock { $0 }), code: r.code)
    }
    /// The independent testing's consumers of `url`: ffmpeg over TCP and UDP from the
    /// start, and over TCP and UDP joining 3 s later, 10 s each at `-v warning`, with
    /// ffprobe reading 5 s of access units as the joiners start. Each viewer's result with
    /// its label ("ffmpeg over udp joining mid-stream"), the packets and ffprobe's stderr.
    public static func fourConsumers(_ url: String) throws
        -> (viewers: [(label: String, result: Result)], packets: [RTSPPackets.Packet], probeWarnings: String) {
        let early = try ["tcp", "udp"].map { try FFmpegViewer(url, transport: $0) }
        eventually("the first consumers to decode 3 s", timeout: .seconds(30)) { early.allSatisfy { $0.frames >= 90 } }
        let joiners = try ["tcp", "udp"].map { try FFmpegViewer(url, transport: $0) }
        let (packets, probeWarnings) = try RTSPPackets.read(url, seconds: 5)
        var viewers: [(label: String, result: Result)] = []
        for (role, group) in [("from the start", early), ("joining mid-stream", joiners)] {
            for viewer in group {
                let r = viewer.finish(timeout: 40)
                let label = "ffmpeg over \(viewer.transport) \(role)"
                print("\(label): \(r.frames) frames, \(r.warnings.isEmpty ? "no warning" : "warnings")")
                viewers.append((label, r))
            }
        }
        return (viewers, packets, probeWarnings)
    }
}
