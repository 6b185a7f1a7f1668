// plumb-bench: measurements that are too machine-dependent for tests. Run by `make bench`
// (bench/*.sh). Prints what it measured; exit 1 when a measurement could not be made.
//
//   plumb-bench rtsp-preview [--size WxH] [--fps N] [--joins N] [--seconds S] [--pattern snow|ball|...] [--transport tcp|udp] [--bitrate KBITS] [--first-frame-only]
//
// rtsp-preview: a live test pattern is encoded by the preview branch and served by
// RTSPPreview (all in this process, as `plumb serve` will). It reports
//   - the time to the first decoded frame for a consumer joining the running stream, with
//     scheduled keyframes 100 s apart (only the keyframe asked for on PLAY helps), seen
//     by an rtspsrc client inside this process and by a separate gst-launch-1.0 process;
//   - this process's CPU time (getrusage) over S seconds with 0, 1, 4 and 8 consumers
//     (separate gst-launch-1.0 processes: rtspsrc ! rtph264depay ! fakesink), and what
//     each extra consumer costs;
//   - the source's largest gap between frames meanwhile.
import Foundation
import GStreamer
import Plumb
import PlumbRTSP
import GLib

/// CPU time (user + system) this process has used, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func format(_ seconds: Double) -> String { String(format: "%.3f s", seconds) }

/// A gst-launch-1.0 consumer process.
func launch(_ arguments: [String]) -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
    p.arguments = ["-q"] + arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    do { try p.run() } catch { fail("cannot run gst-launch-1.0: \(error)") }
    return p
}

func waitExit(_ p: Process, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(2_000) }
    if p.isRunning {
        p.terminate()
        p.waitUntilExit()
        return false
    }
    return p.terminationStatus == 0
}

func waitUntil(_ timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(10_000)
    }
    return true
}

/// Time from PLAYING to the first decoded frame of an rtspsrc client in this process.
func inProcessFirstFrame(_ url: String, transport: String) -> Double? {
    guard let client = try? Pipeline.parse(
        "rtspsrc location=\(url) protocols=\(transport) latency=0 ! rtph264depay ! avdec_h264 ! fakesink name=out async=false")
    else { fail("cannot build the rtspsrc client") }
    let first = DispatchSemaphore(value: 0)
    let seen = Mutexed(false)
    client.element(named: "out")!.staticPad("sink")!.addProbe(.buffer) { _ in
        if seen.swap(true) == false { first.signal() }
        return .ok
    }
    let start = DispatchTime.now()
    _ = client.requestState(.playing)
    let got = first.wait(timeout: .now() + 5) == .success
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    try? client.setState(.null)
    return got ? elapsed : nil
}

/// A value behind a lock, for probes.
final class Mutexed<T>: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func swap(_ new: T) -> T { lock.withLock { defer { value = new }; return value } }
}

// MARK: rtsp-preview

func rtspPreview(_ arguments: [String]) {
    let usage = "usage: plumb-bench rtsp-preview [--size WxH] [--fps N] [--joins N] [--seconds S] [--pattern P] "
        + "[--transport tcp|udp] [--bitrate KBITS] [--first-frame-only]"
    let options = BenchOptions(arguments, usage: usage,
                               valued: ["--size", "--fps", "--joins", "--seconds", "--pattern", "--transport", "--bitrate"],
                               switches: ["--first-frame-only"])
    let size = options.size("--size", default: VideoSize(width: 640, height: 480))
    let fps = options.int("--fps", default: 30, positive: true)
    let joins = options.int("--joins", default: 10, positive: true)
    let seconds = options.double("--seconds", default: 10)
    let pattern = options.string("--pattern", default: "snow")
    let transport = options.string("--transport", default: "tcp", oneOf: ["tcp", "udp"])
    let bitrate = options.int("--bitrate", default: 1500, positive: true)
    let firstFrameOnly = options.isSet("--first-frame-only")
    let encoding = PreviewEncoding(bitrate: bitrate, keyframeInterval: 3000)
    let source: PreviewTestSource
    let preview: RTSPPreview
    let loop = MainContextThread(name: "bench.rtsp")
    do {
        source = try PreviewTestSource(size: size, rate: fps, pattern: pattern, encoding: encoding)
        preview = try RTSPPreview(stream: source.stream, configuration: .init(port: 0))
        try source.start()
        try preview.start(on: loop.context)
    } catch {
        fail("cannot start the preview: \(error)")
    }
    let url = preview.url
    say("RTSP preview: videotestsrc pattern=\(pattern) \(size) @ \(fps) fps, x264 ultrafast/zerolatency \(encoding.bitrate) kbit/s, "
        + "scheduled keyframe every \(encoding.keyframeInterval) frames (\(encoding.keyframeInterval / fps) s); \(url)")
    say("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?")")

    // Time to first frame, for consumers joining the running shared media.
    let watcher = launch(["rtspsrc", "location=\(url)", "protocols=\(transport)", "latency=0", "!", "rtph264depay", "!", "fakesink"])
    guard waitUntil(20, { preview.clientCount == 1 && source.stream.statistics.frames > 2 * fps }) else {
        fail("the first consumer never connected")
    }
    var inProcess: [Double] = []
    var external: [Double] = []
    for _ in 0..<joins {
        Thread.sleep(forTimeInterval: 0.7)  // past the keyframe cooldown: each join is a fresh one
        if let t = inProcessFirstFrame(url, transport: transport) { inProcess.append(t) }
        Thread.sleep(forTimeInterval: 0.7)
        let start = DispatchTime.now()
        let p = launch(["rtspsrc", "location=\(url)", "protocols=\(transport)", "latency=0", "!", "rtph264depay", "!",
                        "avdec_h264", "!", "fakesink", "num-buffers=1"])
        if waitExit(p, timeout: 5) {
            external.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        }
    }
    var startup: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now()
        if waitExit(launch(["fakesrc", "num-buffers=1", "!", "fakesink"]), timeout: 20) {
            startup.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        }
    }
    guard !inProcess.isEmpty, !external.isEmpty else {
        fail("no joining consumer decoded a frame within 5 s")
    }
    watcher.interrupt()
    _ = waitExit(watcher, timeout: 10)
    say("time to first decoded frame, consumer joining mid-stream (rtspsrc latency=0, \(transport.uppercased())), \(joins) joins each:")
    say("  rtspsrc in this process:   median \(format(median(inProcess))), max \(format(inProcess.max()!))"
        + "; \(inProcess.count) of \(joins) within 5 s")
    say("  gst-launch-1.0 process:    median \(format(median(external))), max \(format(external.max()!))"
        + "; \(external.count) of \(joins) within 5 s  (its own start-up alone: median \(format(median(startup))))")
    say("  keyframes made: \(source.stream.statistics.keyframes), requests sent to the encoder: "
        + "\(source.stream.statistics.keyframeRequestsSent), wishes: \(source.stream.statistics.keyframeWishes)")

    result("rtsp.first_frame_ms.\(transport)", median(inProcess) * 1000)
    result("rtsp.first_frame_ms.\(transport).samples", samples: inProcess.map { $0 * 1000 })
    if firstFrameOnly {
        preview.stop()
        source.stop()
        loop.stop()
        return
    }

    // CPU of this (serving) process with 0, 1, 4, 8 consumers.
    _ = waitUntil(10) { preview.clientCount == 0 }
    var results: [(Int, Double, UInt64)] = []
    var bitrates: [Double] = []
    var consumers: [Process] = []
    for count in [0, 1, 4, 8] {
        while consumers.count < count {
            consumers.append(launch(["rtspsrc", "location=\(url)", "protocols=\(transport)", "latency=0", "!",
                                     "rtph264depay", "!", "fakesink"]))
        }
        guard waitUntil(20, { preview.clientCount == count }) else {
            fail("\(preview.clientCount) consumers connected, wanted \(count)")
        }
        Thread.sleep(forTimeInterval: 1)  // settle: joins and their keyframe are done
        let framesBefore = source.frameCount
        let bytesBefore = source.stream.statistics.bytes
        let cpuBefore = cpuSeconds()
        let wallBefore = DispatchTime.now()
        Thread.sleep(forTimeInterval: seconds)
        let cpu = cpuSeconds() - cpuBefore
        let wall = Double(DispatchTime.now().uptimeNanoseconds - wallBefore.uptimeNanoseconds) / 1e9
        bitrates.append(Double(source.stream.statistics.bytes - bytesBefore) * 8 / wall / 1000)
        let gap = Array(source.frames.dropFirst(max(0, framesBefore - 1))).largestArrivalGap
        results.append((count, cpu / wall * 100, gap))
        guard consumers.allSatisfy(\.isRunning) else { fail("a consumer died while measuring") }
    }
    for p in consumers { p.interrupt() }
    for p in consumers { _ = waitExit(p, timeout: 10) }
    say("serving process CPU (source + encoder + RTSP server, getrusage) over \(Int(seconds)) s, "
        + "consumers: rtspsrc protocols=\(transport) ! rtph264depay ! fakesink:")
    for (count, percent, gap) in results {
        say(String(format: "  %d consumer%@: %5.1f %% of one core; source's largest frame gap %.1f ms (interval %.1f ms)",
                   count, count == 1 ? " " : "s", percent, Double(gap) / 1e6, 1000 / Double(fps)))
    }
    say(String(format: "  stream bitrate meanwhile: %.0f kbit/s", median(bitrates)))
    let base = results[0].1
    let perConsumer = (results[3].1 - base) / 8
    say(String(format: "  each extra consumer: %.2f %% of one core (from 0 to 8), %.2f %% (from 1 to 8)",
               perConsumer, (results[3].1 - results[1].1) / 7))
    let frames = source.frames
    say("source: \(frames.count) frames, largest timestamp step \(String(format: "%.1f", Double(frames.largestTimestampGap) / 1e6)) ms, "
        + "errors \(source.errors.count)")
    preview.stop()
    source.stop()
    loop.stop()
}

