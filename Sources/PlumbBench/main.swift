// plumb-bench: capture latencies on a running session, printed as numbers (see Bench.swift
// and bench/capture-latency.sh). Benchmarks, not tests: run it on a quiet machine, in release.
//
//   plumb-bench [--size WxH] [--fps N] [--photos N] [--recordings N]
//   plumb-bench rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]
//       (see RotationBench.swift and bench/rotation-latency.sh)
//
// Exit 0 when done, 2 on a bad argument, 1 on a failure.
import Foundation
import Plumb

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("plumb-bench: \(message)\n".utf8))
    exit(code)
}

let usage = "usage: plumb-bench [--size WxH] [--fps N] [--photos N] [--recordings N]"
var args = Array(CommandLine.arguments.dropFirst())
if args.first == "rotation-latency" {
    await RotationBench.main(Array(args.dropFirst()))
}
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
