import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbLocation
import PlumbRotation
import Synchronization

/// `plumb record --seconds N [-o FILE] [--camera ...] [--size WxH] [--fps N] [--codec h264|h265]`
///
/// One session for one recording: open, record N seconds from the first frame (a keyframe
/// made for the request), stop with EOS so the MP4 is finalized, close, print the facts.
enum RecordCommand: Command {
    static let name = "record"
    static let summary = "record N seconds to an MP4 (H.264/H.265) and print its facts as JSON"
    static var watchedSignals: [Int32] { Interrupt.signals }
    static let help = """
        Usage: plumb record --seconds N [-o FILE] [--force] [--camera NAME|PATH|test] [--size WxH] [--zoom F] [--control NAME=VALUE]...
                            [--fps N] [--codec h264|h265] [--encoder auto|NAME] [--accelerometer SPEC] [--mount ANGLE]
                            [--facing back|front] [--hysteresis DEG] [--debounce MS]
                            [--split-on-rotation] [--burn-in] [--lock]
                            [--location gpsd[:HOST:PORT]|fixed:LAT,LON[,ALT]|off] [--max-fix-age S] [--gps LAT,LON[,ALT]]

        Opens the camera, records N seconds into a fragmented MP4 (a crash or power cut
        loses at most the last second), stops with EOS so the file is finalized, closes
        the camera and prints the facts as one line of JSON on stdout: codec, encoder,
        width, height, seconds, frames, frames_lost (frames_lost_by_camera: gaps in the
        camera's frames; frames_lost_by_encoder: frames that did not reach the file), bytes,
        started_at, rotation, gps, file, and with GPS latitude, longitude, altitude, fix_age_s,
        gps_time. Frames lost, and a file cut short because the camera and the encoder could
        not keep up (cut_short), are also said on stderr; the exit code stays 0. When it starts it says so on
        stderr; on a terminal a progress line follows there (elapsed, frames, bytes).
        With --location the MP4 carries where it started (udta/©xyz, ISO 6709, as phones
        write it: exiftool's GPSCoordinates, ffprobe's location tag); with gpsd, the fix it
        holds, asked for when the command starts and waited for at most \(LocationOptions.answerWait) from then.

        Options:
          --seconds N      how long to record, 1 to 3600 (decimals allowed)
          -o FILE          the MP4 to write; default recording-YYYYmmdd-HHMMSS.mp4 in the
                           current folder (or in FILE when it is a folder)
          --force          replace FILE if it exists (without it, an existing FILE is an error)
          --lock           freeze auto exposure, gain, focus and white balance at the values the
                           camera reached once it streams (after --control), for the whole
                           recording, and put them back after it; V4L2 cameras only
        \(CaptureOptions.help)
          --fps N          frames per second, 1 to 1000 (default 30: a camera that lacks it gives
                           the nearest it has); a rate given here that the camera lacks is an
                           error listing the rates it has (the test pattern makes any)
          --codec C        h264 (default) or h265; when its encoder is missing the other one is
                           used, and the facts say which
          --encoder E      auto (default: the best usable one, see `plumb encoders`) or an
                           encoder's name (v4l2h264enc, vah264enc, x264enc ...); the facts name
                           it and, in encoder_passed_over, why better ones were not used
        \(RotationOptions.help)
          --split-on-rotation  when the angle changes, close the file and go on in NAME-2.mp4,
                           NAME-3.mp4 ... (on a keyframe, no frame lost), so every file plays upright
          --burn-in        rotate the pixels instead of writing the track matrix, for players
                           that ignore it (costs CPU: every frame is turned)
        \(LocationOptions.help)

        Ctrl-C or SIGTERM stops early the way the end of N seconds does: EOS, the file is
        finalized, the facts are printed, exit 0. A second signal aborts at once (exit 130;
        the file keeps all but its last fragment). Exit codes: 0 recorded, 1 the camera or
        the recording failed at run time (what was recorded is kept), 2 a bad argument
        (nothing is opened or written), 130 aborted, or interrupted before the first frame.
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        guard let secondsText = try arguments.option("--seconds") else {
            throw UsageError("--seconds N is required: how long to record, 1 to 3600")
        }
        guard let seconds = Double(secondsText), seconds.isFinite, (1...3600).contains(seconds) else {
            throw UsageError("--seconds \(secondsText): expected a number of seconds from 1 to 3600")
        }
        let output = try arguments.option("-o", "--output")
        let force = arguments.flag("--force")
        let lock = arguments.flag("--lock")
        let capture = try CaptureOptions.parse(&arguments)
        let fpsText = try arguments.option("--fps")
        let fps = try fpsText.map { text throws(UsageError) in
            try CaptureOptions.parseInt(text, option: "--fps", range: 1...1000, what: "frames per second")
        } ?? 30
        let codecText = try arguments.option("--codec")
        let codec = try codecText.map { text throws(UsageError) in
            guard let c = VideoCodec(rawValue: text.lowercased()) else {
                throw UsageError("--codec \(text): expected h264 or h265")
            }
            return c
        } ?? .h264
        let encoderText = try arguments.option("--encoder")
        let rotation = try RotationOptions(&arguments)
        let location = try LocationOptions.parse(&arguments)
        var options = RecordingOptions()
        if let encoderText {
            do {
                options.encoder = try EncoderPreference(parsing: encoderText)
                // Before anything opens: a named encoder that cannot run is a bad argument.
                if case .named = options.encoder { _ = try EncoderChoice.choose(codec, preference: options.encoder) }
            } catch {
                throw UsageError("--encoder \(encoderText): \(error)")
            }
        }
        options.splitOnRotation = arguments.flag("--split-on-rotation")
        options.burnIn = arguments.flag("--burn-in")
        // N seconds on the frames' own clock: N×fps frames, N seconds long.
        options.length = .milliseconds(Int((seconds * 1000).rounded()))
        try arguments.finish()
        if let problem = capture.size.recordingProblem { throw UsageError("--size \(problem)") }
        let target = try OutputTarget.resolve(output, force: force, prefix: "recording", ext: "mp4", allowStdout: false)
        let url = target.url!
        let source: CameraSource
        let observer: RotationObserver?
        do {
            source = try capture.source()
            if lock {
                guard case .device = source else { throw UsageError("--lock: \(CameraControlError.noControls(camera: source.identifier))") }
            }
            observer = try rotation.makeObserver { StandardStream.error.write("plumb record: warning: \($0)\n") }
        } catch let error as AccelerometerError {
            throw UsageError("--accelerometer: \(error)")
        } catch {
            return report(error, command: name)
        }

        // gpsd is asked for its fix now, while the camera opens; the first file waits for the
        // answer only until this deadline, and each file takes the fix held when it starts.
        let locator = location.provider(command: name)
        locator.start()
        let gpsdDeadline = ContinuousClock.now + LocationProvider.answerWait
        defer { locator.stop() }
        /// The latest reading a file took, for why it has no GPS.
        let lastReading = Mutex<LocationProvider.Reading?>(nil)
        if case .off = location.source {} else {
            options.location = {
                let reading = locator.reading()
                lastReading.withLock { $0 = reading }
                return reading.location
            }
        }

        let interrupt = Interrupt(abortMessage:
            "plumb record: aborted by a second signal; \(url.path) keeps what was recorded up to its last whole fragment")
        let session: CaptureSession
        do {
            // A rate asked for is met or refused: a file at another rate is not what was asked.
            session = try await CaptureSession.open(source, size: capture.size, rate: FrameRate(fps),
                                                    exactRate: fpsText != nil)
        } catch {
            return report(error, command: name)
        }
        if interrupt.isRequested {
            await session.close()
            StandardStream.error.write("plumb record: \(interrupt.signalName): stopped before recording; nothing was written\n")
            return .aborted
        }
        // `--lock`: released when the command returns, the recording finished or failed.
        var held: (CameraControls, CameraControlLock)?
        defer {
            if let (controls, lock) = held {
                do { try controls.release(lock) } catch {
                    StandardStream.error.write("plumb record: warning: --lock: the auto modes could not be put back: \(error)\n")
                }
            }
        }
        let recording: Recording
        let answered: Bool
        let firstReading: LocationProvider.Reading?
        do {
            // The matrix is latched at the start: the sensor's first reading must be in by then.
            if let observer {
                await observer.firstReading()
                try await session.follow(observer)
            }
            try await capture.applyZoom(to: session)
            if lock, case .device(let device) = session.camera {
                let controls = try CameraControls(path: device.path)
                held = (controls, try controls.lock())
            }
            answered = await locator.waitForGPSD(until: gpsdDeadline)
            recording = try await session.startRecording(to: url, codec: codec, options: options)
            firstReading = lastReading.withLock { $0 }
        } catch {
            await session.close()
            return report(error, command: name)
        }

        // The clock starts at the first frame: N seconds means N seconds in the file.
        let started: Bool
        do {
            started = try await untilInterrupted(interrupt) { _ = try await recording.firstFrameTime() } != nil
        } catch {
            return await finish(recording, session, failure: error)
        }
        guard started else {
            StandardStream.error.write("plumb record: \(interrupt.signalName): stopped before the first frame\n")
            return await finish(recording, session, interrupted: true)
        }
        let format = await session.format
        StandardStream.error.write("plumb record: recording \(url.path): \(recording.codec.rawValue) \(format.size) at "
            + "\(format.rate.perSecond.clean) fps for \(seconds.clean) s; Ctrl-C stops early and finalizes the file\n")
        let choice = recording.output.choice
        if choice.fellBack {
            StandardStream.error.write("plumb record: warning: encoding with \(choice.encoder): "
                + choice.passedOver.filter { $0.contains(": failed to start") }.joined(separator: "; ") + "\n")
        }
        if recording.output.location == nil, let why = firstReading?.whyNone {
            let waited = answered ? "" : " (waited \(LocationOptions.answerWait))"
            StandardStream.error.write("plumb record: warning: the recording has no GPS: \(why)\(waited)\n")
        }

        let progress = isatty(STDERR_FILENO) != 0 ? ProgressLine(total: seconds, url: url) : nil
        let waited = ContinuousClock.now
        let outcome = await wait(seconds: seconds, recording: recording, session: session,
                                 interrupt: interrupt, progress: progress)
        progress?.end(recording.progress.frames)
        switch outcome {
        case .elapsed:
            return await finish(recording, session)
        case .behind:
            let wall = (ContinuousClock.now - waited).components
            let behind = Behind(asked: seconds, wall: Double(wall.seconds) + Double(wall.attoseconds) / 1e18, format: format)
            return await finish(recording, session, behind: behind)
        case .interrupted:
            StandardStream.error.write("plumb record: \(interrupt.signalName): stopping, finalizing \(url.path)\n")
            return await finish(recording, session)
        case .failed(let error):
            return await finish(recording, session, failure: error)
        }
    }

    private enum Outcome: Sendable {
        /// The file holds its N seconds.
        case elapsed
        /// The wall-clock backstop came first: the camera and the encoder fell behind.
        case behind
        case interrupted
        case failed(any Error)
    }

    /// A recording stopped by the backstop before it held its length.
    private struct Behind {
        var asked: Double
        var wall: Double
        var format: CaptureFormat

        /// Why the file is shorter than asked, for the facts' `cut_short`.
        func reason(holding seconds: Double, frames: Int) -> String {
            "the camera and the encoder could not keep up with \(format.size) at \(format.rate.perSecond.clean) fps: "
                + "after \(String(cFormat: "%.1f", wall)) s the file held \(seconds.clean) s (\(frames) frames) "
                + "of the \(asked.clean) s asked for"
        }
    }

    /// Until the recording holds its N seconds, a signal, or the camera fails or stalls.
    private static func wait(seconds: Double, recording: Recording, session: CaptureSession,
                             interrupt: Interrupt, progress: ProgressLine?) async -> Outcome {
        // The frames' timestamps decide (RecordingOptions.length); the wall clock is only a
        // backstop, should frames stop reaching the file while the camera still sends them.
        let backstop = ContinuousClock.now + .milliseconds(Int((seconds * 1000).rounded())) + .seconds(5)
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do { try await recording.lengthReached() } catch { return nil }
                return .elapsed
            }
            group.addTask {
                while ContinuousClock.now < backstop {
                    progress?.update(recording.progress.frames)
                    let tick = ContinuousClock.now + .milliseconds(progress == nil ? 60_000 : 250)
                    do { try await Task.sleep(until: min(tick, backstop)) } catch { return nil }
                }
                return .behind
            }
            group.addTask {
                await interrupt.requested()
                return Task.isCancelled ? nil : .interrupted
            }
            // A camera that fails or stalls ends the recording.
            group.addTask {
                await StallWatchdog().watch(session).map { .failed($0) }
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let outcome = next { return outcome }
            }
            return .elapsed
        }
    }

    /// Stops the recording (EOS: the file is finalized), closes the camera and reports.
    /// Facts are printed whenever the file holds frames, even after a failure; a file
    /// that holds none is removed (an empty file is no recording). After a camera failure
    /// the engine has already drained the branch, so what was recorded is finalized too.
    private static func finish(_ recording: Recording, _ session: CaptureSession,
                               interrupted: Bool = false, behind: Behind? = nil,
                               failure: (any Error)? = nil) async -> ExitCode {
        var facts: RecordingFacts?
        var failure = failure
        do {
            facts = try await recording.stop()
        } catch {
            facts = nil
            failure = failure ?? error
        }
        await session.close()
        let frames = facts?.frames ?? recording.progress.frames
        if var facts, frames > 0 {
            if let behind {
                facts.cutShort = behind.reason(holding: facts.seconds, frames: facts.frames)
                StandardStream.error.write("plumb record: warning: \(facts.cutShort!)\n")
            }
            if let warning = facts.lossSummary { StandardStream.error.write("plumb record: warning: \(warning)\n") }
            say(facts.json)
        } else if frames == 0 {
            try? FileManager.default.removeItem(at: recording.url)
        }
        if let failure {
            let code = report(failure, command: name)
            if frames > 0 {
                StandardStream.error.write("plumb record: \(recording.url.path) keeps the \(frames) frames recorded before the failure\n")
            }
            return code
        }
        return interrupted && frames == 0 ? .aborted : .success
    }

}

/// The `\r` line a terminal shows while recording: elapsed/total, frames, bytes.
final class ProgressLine: Sendable {
    let total: Double
    let url: URL
    let start = ContinuousClock.now

    init(total: Double, url: URL) {
        self.total = total
        self.url = url
    }

    func update(_ frames: Int) {
        let elapsed = ContinuousClock.now - start
        let seconds = min(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, total)
        let bytes = Path.size(url.path) ?? 0
        let line = "recording " + String(cFormat: "%.1f", seconds) + "/\(total.clean) s, \(frames) frames, \(Self.size(bytes))"
        StandardStream.error.write("\r\(line)\u{1B}[K")
    }

    /// The last update, and the line is left standing.
    func end(_ frames: Int) {
        update(frames)
        StandardStream.error.write("\n")
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1024 * 1024 { return String(cFormat: "%.0f kB", Double(bytes) / 1024) }
        return String(cFormat: "%.1f MB", Double(bytes) / (1024 * 1024))
    }
}

extension Double {
    /// "30", "29.97", "2.5": no trailing ".0".
    var clean: String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
