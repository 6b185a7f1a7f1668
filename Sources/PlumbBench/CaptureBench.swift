// Capture latencies on a running session (bench/capture-latency.sh): still latency
// (takePhoto -> JPEG bytes) and recording start latency (request -> first keyframe in the muxer).
import Foundation
import Plumb

func captureLatency(_ arguments: [String]) async {
    let usage = "usage: plumb-bench capture [--size WxH] [--fps N] [--photos N] [--recordings N]"
    var args = arguments
    var photos = 50
    var recordings = 20
    var size = VideoSize(width: 320, height: 240)
    var fps = 30
    while !args.isEmpty {
        let flag = args.removeFirst()
        if flag == "--help" || flag == "-h" {
            print(usage)
            exit(0)
        }
        guard let value = args.first else { fail("\(flag) needs a value\n\(usage)", code: 2) }
        args.removeFirst()
        switch flag {
        case "--size": size = VideoSize(parsing: value) ?? { fail("--size wants WxH, not \(value)", code: 2) }()
        case "--fps": fps = Int(value) ?? { fail("--fps wants a number, not \(value)", code: 2) }()
        case "--photos": photos = Int(value) ?? { fail("--photos wants a number, not \(value)", code: 2) }()
        case "--recordings": recordings = Int(value) ?? { fail("--recordings wants a number, not \(value)", code: 2) }()
        default: fail("unknown option \(flag)\n\(usage)", code: 2)
        }
    }

    do {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Bench.run(size: size, fps: fps, photos: photos, recordings: recordings, folder: folder)
    } catch {
        fail("\(error)", code: 1)
    }
}
