// plumb-bench: measurements too machine-dependent for tests, printed as numbers.
// Run by `make bench` (bench/*.sh) on the release build; run it on a quiet machine.
//
//   plumb-bench capture [--size WxH] [--fps N] [--photos N] [--recordings N]
//   plumb-bench rtsp-preview [--size WxH] [--fps N] [--joins N] [--seconds S] [--pattern P] [--transport tcp|udp] [--bitrate KBITS] [--first-frame-only]
//   plumb-bench rotation-latency [--size WxH] [--fps N] [--turns N] [--letterbox]
//   plumb-bench idle [--size WxH] [--fps N] [--seconds S]
//   plumb-bench retention [--files N] [--passes N]
//   plumb-bench motion [--size WxH]... [--rate N] [--frames N] [--rounds N]
//
// Besides the text, each measurement `make bench` keeps is printed as a line
// "= KEY JSON" (a number, or the samples as an array) that bench/run.sh collects.
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

/// One measurement for bench/results.json: "= KEY JSON".
func result(_ key: String, _ value: Double) {
    fflush(nil)  // after the text print() has buffered (all streams: stdout is not concurrency-safe)
    say("= \(key) \(value.isFinite ? String(format: "%.3f", value) : "null")")
}

/// The samples behind a distribution, for the charts.
func result(_ key: String, samples: [Double]) {
    fflush(nil)
    say("= \(key) [" + samples.map { String(format: "%.2f", $0) }.joined(separator: ",") + "]")
}

/// A duration in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// A measurement as the text prints it: one decimal.
func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

/// The nearest-rank percentile `p` (0...100) of `values`.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s[max(0, min(s.count - 1, Int((p / 100 * Double(s.count)).rounded(.up)) - 1))]
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "capture":
    await captureLatency(Array(arguments.dropFirst()))
case "rtsp-preview":
    rtspPreview(Array(arguments.dropFirst()))
case "rotation-latency":
    await RotationBench.main(Array(arguments.dropFirst()))
case "idle":
    await IdleBench.main(Array(arguments.dropFirst()))
case "retention":
    RetentionBench.main(Array(arguments.dropFirst()))
case "motion":
    MotionBench.main(Array(arguments.dropFirst()))
default:
    fail("usage: plumb-bench capture|rtsp-preview|rotation-latency|idle|retention|motion [OPTIONS]", code: 2)
}
