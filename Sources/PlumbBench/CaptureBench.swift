// Capture latencies on a running session (bench/capture-latency.sh): still latency
// (takePhoto -> JPEG bytes) and recording start latency (request -> first keyframe in the muxer).
import Foundation
import Plumb

func captureLatency(_ arguments: [String]) async {
    let usage = "usage: plumb-bench capture [--size WxH] [--fps N] [--photos N] [--recordings N]"
    let options = BenchOptions(arguments, usage: usage, valued: ["--size", "--fps", "--photos", "--recordings"])
    let size = options.size("--size", default: VideoSize(width: 320, height: 240))
    let fps = options.int("--fps", default: 30, positive: true)
    let photos = options.int("--photos", default: 50, positive: true)
    let recordings = options.int("--recordings", default: 20, positive: true)

    do {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Bench.run(size: size, fps: fps, photos: photos, recordings: recordings, folder: folder)
    } catch {
        fail("\(error)", code: 1)
    }
}
