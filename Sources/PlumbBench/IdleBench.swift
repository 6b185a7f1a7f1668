import Foundation
import Plumb

/// `plumb-bench idle`: what the camera costs alone and with the preview encoder attached
/// but nobody consuming it (`plumb serve`'s idle state before the encoder idles itself):
/// this process's CPU (getrusage) over S seconds each, after a settle, and its resident size.
/// The difference is what encoding the preview only on demand saves an idle recorder.
enum IdleBench {
    static let usage = "usage: plumb-bench idle [--size WxH] [--fps N] [--seconds S]"

    static func main(_ arguments: [String]) async -> Never {
        let options = BenchOptions(arguments, usage: usage, valued: ["--size", "--fps", "--seconds"])
        let size = options.size("--size", default: VideoSize(width: 640, height: 480))
        let fps = options.int("--fps", default: 30, positive: true)
        let seconds = options.double("--seconds", default: 5)
        do {
            let session = try await CaptureSession.open(.testPattern(), size: size, rate: FrameRate(fps))
            let camera = try await measure(seconds)
            try await session.attach(EncodedPreviewOutput(encoding: PreviewEncoding(), stream: EncodedStream()))
            let encoding = try await measure(seconds)
            await session.close()
            print("idle cost on the test pattern, \(size) at \(fps) fps, over \(fmt(seconds)) s each (getrusage, % of one core):")
            print("  camera only:                    \(fmt(camera.cpu)) %, \(fmt(camera.rss)) MiB resident")
            print("  camera + preview encoder, idle: \(fmt(encoding.cpu)) %, \(fmt(encoding.rss)) MiB resident")
            result("idle.camera_only_cpu_pct", camera.cpu)
            result("idle.camera_only_rss_mib", camera.rss)
            result("idle.camera_preview_encoder_cpu_pct", encoding.cpu)
            result("idle.engine_encoder_share_pct", (encoding.cpu - camera.cpu) / encoding.cpu * 100)
        } catch {
            fail("\(error)", code: 1)
        }
        exit(0)
    }

    /// CPU (% of one core) over `seconds` after a 2 s settle, and the resident size then (MiB).
    static func measure(_ seconds: Double) async throws -> (cpu: Double, rss: Double) {
        try await Task.sleep(for: .seconds(2))
        let cpu = cpuSeconds(), wall = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        let elapsed = ContinuousClock.now - wall
        let wallSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ((cpuSeconds() - cpu) / wallSeconds * 100, residentMiB())
    }

    static func residentMiB() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan) / 1024
    }

}
