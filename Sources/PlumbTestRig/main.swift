// plumb-testrig: a tiny recorder for tests that need a separate process (kill -9 during a
// recording). It may give way to `plumb record` once that exists.
//
//   plumb-testrig record FILE [--size WxH] [--fps N] [--seconds S] [--codec h264|h265]
//   plumb-testrig bench [--size WxH] [--fps N] [--photos N] [--recordings N]   (see Bench.swift)
//   plumb-testrig rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]   (see RotationBench.swift)
//
// Prints one JSON line per event on stdout, flushed at once:
//   {"event":"recording","first_frame_ms":...}  when the first frame is in the muxer
//   {"event":"stopped", ...facts}               after a clean stop at --seconds
// Exit 0 on a clean stop, 2 on a bad argument, 1 on a failure.
import Foundation
import Plumb

/// One line on stdout, written at once (no buffering: the test may kill us next).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("plumb-testrig: \(message)\n".utf8))
    exit(code)
}

let usage = """
    usage: plumb-testrig record FILE [--size WxH] [--fps N] [--seconds S] [--codec h264|h265]
           plumb-testrig bench [--size WxH] [--fps N] [--photos N] [--recordings N]
           plumb-testrig rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]
    """
var args = Array(CommandLine.arguments.dropFirst())
let command = args.first ?? ""
var file = URL(fileURLWithPath: "/dev/null")
switch command {
case "record" where args.count >= 2:
    file = URL(fileURLWithPath: args[1])
    args.removeFirst(2)
case "bench":
    args.removeFirst()
case "rotation-latency":
    await RotationBench.main(Array(args.dropFirst()))
default:
    fail(usage, code: 2)
}
var photos = 50
var recordings = 20
var size = VideoSize(width: 320, height: 240)
var fps = 30
var seconds = 3600.0
var codec = VideoCodec.h264
while !args.isEmpty {
    let flag = args.removeFirst()
    guard let value = args.first else { fail("\(flag) needs a value", code: 2) }
    args.removeFirst()
    switch flag {
    case "--size": size = VideoSize(parsing: value) ?? { fail("--size wants WxH, not \(value)", code: 2) }()
    case "--fps": fps = Int(value) ?? { fail("--fps wants a number, not \(value)", code: 2) }()
    case "--seconds": seconds = Double(value) ?? { fail("--seconds wants a number, not \(value)", code: 2) }()
    case "--photos": photos = Int(value) ?? { fail("--photos wants a number, not \(value)", code: 2) }()
    case "--recordings": recordings = Int(value) ?? { fail("--recordings wants a number, not \(value)", code: 2) }()
    case "--codec": codec = VideoCodec(rawValue: value) ?? { fail("--codec is h264 or h265, not \(value)", code: 2) }()
    default: fail("unknown option \(flag)", code: 2)
    }
}

if command == "bench" {
    do {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Bench.run(size: size, fps: fps, photos: photos, recordings: recordings, folder: folder)
    } catch {
        fail("\(error)", code: 1)
    }
    exit(0)
}

do {
    let session = try await CaptureSession.open(.testPattern(), size: size, rate: FrameRate(fps))
    let recording = try await session.startRecording(to: file, codec: codec)
    let first = try await recording.firstFrameTime()
    emit(#"{"event":"recording","first_frame_ms":\#(first / 1_000_000)}"#)
    try await Task.sleep(for: .seconds(seconds))
    let facts = try await recording.stop()
    await session.close()
    emit(#"{"event":"stopped","facts":\#(facts.json)}"#)
} catch {
    fail("\(error)", code: 1)
}
