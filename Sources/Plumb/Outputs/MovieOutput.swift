import Foundation
import GStreamer
import Synchronization

/// A recording: `x264enc|x265enc ! h264parse|h265parse ! mp4mux ! filesink` on a branch
/// of the running session. One MovieOutput writes one file.
///
/// - The muxer writes fragments (`first-moov-then-finalise`): after `kill -9` the file
///   plays up to the last whole fragment; a clean stop leaves a normal MP4.
/// - The file starts with a keyframe made for the request: a force-key-unit event goes
///   to the fresh encoder before its first frame, and anything before the first keyframe
///   is dropped.
/// - The filesink is unbuffered, so what the muxer emitted is in the kernel's hands and
///   survives the process.
/// - Video only: this branch never has an audio element.
public final class MovieOutput: CaptureOutput {
    public let kind = "movie"
    /// About a second of frames may wait for a slow encoder before the oldest are dropped.
    public var queueLimit: Int { 30 }

    public let url: URL
    /// The encoder really used (after any fallback).
    public let choice: EncoderChoice
    public let options: MovieOptions

    private struct State {
        var built = false
        var size = VideoSize(width: 0, height: 0)
        var rate = FrameRate(30)
        var latched: RotationAngle?
        var muxerSource: Pad?
        var encoderSource: Pad?
        var requestTime: ClockTime?
        var requestDate = Date()
        var firstPTS: ClockTime?
        var firstDate: Date?
        var lastEnd: ClockTime?
        var frames = 0
    }

    private let state = Mutex(State())
    private let first = OneShot<ClockTime>()
    let finished = OneShot<MovieFacts>()

    /// Checks the target and picks the encoder; nothing runs until it is attached.
    public init(url: URL, codec: VideoCodec = .h264, options: MovieOptions = MovieOptions()) throws {
        self.url = url
        self.options = options
        self.choice = try EncoderChoice.choose(codec, available: options.isAvailable)
        try Self.checkWritable(url)
        guard options.fragmentDuration >= .milliseconds(100) else {
            throw CaptureError.invalidArgument("fragment duration \(options.fragmentDuration) is too short (at least 100 ms)")
        }
    }

    /// The target's folder must exist and be writable; an existing file is replaced.
    static func checkWritable(_ url: URL) throws {
        guard url.isFileURL else { throw CaptureError.unwritable(path: url.absoluteString, reason: "not a file path") }
        let path = url.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CaptureError.unwritable(path: path, reason: "it is a directory")
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CaptureError.unwritable(path: path, reason: "the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw CaptureError.unwritable(path: path, reason: "the folder \(folder) is not writable")
        }
    }

    // MARK: CaptureOutput

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        try state.withLock { s in
            guard !s.built else { throw CaptureError.alreadyAttached("this recording (a MovieOutput writes one file)") }
            s.built = true
            s.size = format.size
            s.rate = format.rate
        }
        let gop = options.keyframeInterval
            ?? max(1, Int((format.rate.perSecond * Double(options.fragmentDuration.components.seconds)
                           + format.rate.perSecond * Double(options.fragmentDuration.components.attoseconds) / 1e18).rounded()))
        let encoder = try Element(factory: choice.encoder, name: "encoder")
        try configure(encoder, gop: gop)
        let parser = try Element(factory: choice.parser, name: "parser")
        let mux = try Element(factory: "mp4mux", name: "mux")
        let fragmentMs = Int(options.fragmentDuration.components.seconds * 1000
                             + options.fragmentDuration.components.attoseconds / 1_000_000_000_000_000)
        try mux.set("fragment-duration", fragmentMs)
        try mux.set("fragment-mode", EnumNick("first-moov-then-finalise"))
        let sink = try Element(factory: "filesink", name: "file")
        try sink.set("location", url.path)
        try sink.set("buffer-mode", EnumNick("unbuffered"))
        try sink.set("sync", false)
        try bin.add(encoder, parser, mux, sink)
        try encoder.link(to: parser)
        try parser.link(to: mux)
        try mux.link(to: sink)

        // Nothing before the first keyframe goes in (a recording must start decodable).
        let started = first
        encoder.staticPad("src")!.addProbe(.buffer) { [weak self] info in
            guard let self else { return .ok }
            return self.gate(keyframe: info.isKeyframe)
        }
        // Count what the muxer gets: frames, first and last time (as running time: the
        // encoder may offset its timestamps).
        parser.staticPad("src")!.addProbe(.buffer) { [weak self] muxInput, info in
            guard let self, let stamp = info.bufferPTS else { return .ok }
            let pts = muxInput.runningTime(of: stamp) ?? stamp
            let end = pts + (info.bufferDuration ?? 0)
            let isFirst = self.state.withLock { s -> Bool in
                s.frames += 1
                s.lastEnd = max(s.lastEnd ?? 0, end)
                if s.firstPTS == nil {
                    s.firstPTS = pts
                    s.firstDate = Date()
                    return true
                }
                return false
            }
            if isFirst { started.succeed(pts) }
            return .ok
        }
        state.withLock {
            $0.muxerSource = mux.staticPad("src")
            $0.encoderSource = encoder.staticPad("src")
        }
        return BranchEnds(entry: encoder, sink: sink)
    }

    private let passedKeyframe = Atomic<Bool>(false)

    /// Streaming thread: drop until the first keyframe.
    private func gate(keyframe: Bool) -> ProbeResult {
        if passedKeyframe.load(ordering: .relaxed) { return .ok }
        guard keyframe else { return .drop }
        passedKeyframe.store(true, ordering: .relaxed)
        return .ok
    }

    private func configure(_ encoder: Element, gop: Int) throws {
        switch choice.encoder {
        case "x264enc", "x265enc":
            // zerolatency: no lookahead or B-frames, so a frame in is a frame out.
            try encoder.set("tune", parsing: "zerolatency")
            try encoder.set("speed-preset", parsing: "ultrafast")
            try encoder.set("key-int-max", gop)
            if let bitrate = options.bitrate { try encoder.set("bitrate", bitrate) }
        case "openh264enc":
            try encoder.set("gop-size", gop)
            if let bitrate = options.bitrate { try encoder.set("bitrate", bitrate * 1000) }
        default:
            break
        }
    }

    /// Latches the first angle (a file has one matrix) and installs the matrix writer.
    public func apply(rotation: RotationAngle) {
        let (latched, muxerSource): (Bool, Pad?) = state.withLock { s in
            guard s.latched == nil else { return (false, nil) }
            s.latched = rotation
            return (true, s.muxerSource)
        }
        guard latched, let writer = options.matrixWriter, let muxerSource else { return }
        do {
            try writer.install(on: muxerSource, angle: rotation)
        } catch {
            // A recording without the matrix is still a recording; the facts carry the angle.
        }
    }

    public func didAttach(requestTime: ClockTime?) {
        state.withLock {
            $0.requestTime = requestTime
            $0.requestDate = Date()
        }
        // Ask the encoder for a keyframe at the request: an upstream force-key-unit event
        // into its source pad. The branch is still held at its head queue here, so the
        // request is in place before the first frame reaches the encoder.
        state.withLock { $0.encoderSource }?.send(.forceKeyUnit(allHeaders: true, count: 0))
    }

    public func didDetach(error: (any Error)?) {
        // The branch is gone: let go of its pads.
        state.withLock {
            $0.muxerSource = nil
            $0.encoderSource = nil
        }
        if let error {
            first.fail(error)
            finished.fail(error)
            return
        }
        first.fail(CaptureError.outputFailed(output: kind, GStreamerError(message: "the recording ended before its first frame")))
        finished.resolve(Result { try facts() })
    }

    // MARK: Facts

    /// The pipeline running time when the session took the request.
    public var requestTime: ClockTime? { state.withLock { $0.requestTime } }

    /// The first recorded frame's timestamp (running time), once it is in.
    public func firstFrameTime(timeout: Duration = .seconds(10)) async throws -> ClockTime {
        try await first.value(timeout: timeout, what: "the recording's first frame")
    }

    /// Frames and seconds recorded so far.
    public var progress: (frames: Int, seconds: Double) {
        state.withLock { s in
            guard let f = s.firstPTS, let e = s.lastEnd else { return (s.frames, 0) }
            return (s.frames, Double(e - f) / Double(ClockTime.second))
        }
    }

    func facts() throws -> MovieFacts {
        let s = state.withLock { $0 }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let seconds = s.firstPTS.flatMap { f in s.lastEnd.map { Double($0 - f) / Double(ClockTime.second) } } ?? 0
        return MovieFacts(codec: choice.codec.rawValue, encoder: choice.encoder, width: s.size.width,
                          height: s.size.height, seconds: (seconds * 1000).rounded() / 1000, frames: s.frames,
                          bytes: bytes, startedAt: (s.firstDate ?? s.requestDate).iso8601Milliseconds,
                          rotation: (s.latched ?? .degrees0).degrees, file: url.path)
    }
}
