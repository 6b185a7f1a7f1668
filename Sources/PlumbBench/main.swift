// plumb-bench: measurements too machine-dependent for tests, printed as numbers.
// Run by `make bench` (bench/*.sh) on the release build; run it on a quiet machine.
//
//   plumb-bench capture [--size WxH] [--fps N] [--photos N] [--recordings N]
//   plumb-bench rtsp-preview [--size WxH] [--fps N] [--joins N] [--seconds S] [--pattern P] [--transport tcp|udp] [--bitrate KBITS]
//   plumb-bench rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]
//
// Exit 0 when done, 2 on a bad argument, 1 when a measurement could not be made.
import Foundation

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("plumb-bench: \(message)\n".utf8))
    exit(code)
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "capture":
    await captureLatency(Array(arguments.dropFirst()))
case "rtsp-preview":
    rtspPreview(Array(arguments.dropFirst()))
case "rotation-latency":
    await RotationBench.main(Array(arguments.dropFirst()))
default:
    fail("usage: plumb-bench capture|rtsp-preview|rotation-latency [OPTIONS]", code: 2)
}
