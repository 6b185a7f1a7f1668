import Foundation

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
    private let out: Pipe
    private let err: Pipe

    /// `transport` is tcp (RTP interleaved on the RTSP connection) or udp.
    public init(_ url: String, transport: String, seconds: Int = 10) throws {
        self.transport = transport
        // Over UDP, a receive buffer as players take (VLC asks for 2 MiB and more): with
        // ffmpeg's default, a loaded machine that leaves it unscheduled for a moment drops
        // datagrams in its own kernel socket, and it warns of a missing reference picture.
        let buffer = transport == "udp" ? ["-buffer_size", "4194304"] : []
        (process, out, err) = try PlumbProcess.start(PlumbProcess.tool("ffmpeg"), [
            "-nostdin", "-v", "warning", "-progress", "pipe:1", "-rtsp_transport", transport,
        ] + buffer + ["-i", url, "-t", "\(seconds)", "-f", "null", "-"])
    }

    /// Still reading (it stops after `seconds` of stream, or when the stream ends).
    public var isRunning: Bool { process.isRunning }

    public func finish(timeout: TimeInterval) -> Result {
        let r = PlumbProcess.finish(process, out, err, timeout: timeout)
        let frames = r.stdout.split(separator: "\n").last { $0.hasPrefix("frame=") }
            .flatMap { Int($0.dropFirst("frame=".count)) } ?? 0
        return Result(warnings: r.stderr, frames: frames, code: r.code)
    }
    /// The independent testing's consumers of `url`: ffmpeg over TCP and UDP from the
    /// start, and over TCP and UDP joining 3 s later, 10 s each at `-v warning`, with
    /// ffprobe reading 5 s of access units as the joiners start. Each viewer's result with
    /// its label ("ffmpeg over udp joining mid-stream"), the packets and ffprobe's stderr.
    public static func fourConsumers(_ url: String) throws
        -> (viewers: [(label: String, result: Result)], packets: [RTSPPackets.Packet], probeWarnings: String) {
        let early = try ["tcp", "udp"].map { try FFmpegViewer(url, transport: $0) }
        Thread.sleep(forTimeInterval: 3)
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
