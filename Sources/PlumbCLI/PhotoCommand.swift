import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbLocation
import PlumbRotation

/// `plumb photo [-o FILE] [--camera ...] [--size WxH] [--settle MS | --settle-frames N] [--quality Q] [--location ...]`
///
/// One session for one still, like the seeds' camera rig: open, let the exposure settle,
/// take the next frame, close; then write the JPEG and print its facts.
enum PhotoCommand: Command {
    static let name = "photo"
    static let summary = "take one photo (JPEG with EXIF) and print its facts as JSON"
    static var watchedSignals: [Int32] { Interrupt.signals }
    static let help = """
        Usage: plumb photo [-o FILE] [--force] [--camera NAME|PATH|test] [--size WxH] [--zoom F] [--control NAME=VALUE]...
                           [--settle MS | --settle-frames N] [--quality Q]
                           [--location gpsd[:HOST:PORT]|fixed:LAT,LON[,ALT]|off] [--max-fix-age S] [--gps LAT,LON[,ALT]]
                           [--accelerometer SPEC] [--mount ANGLE] [--facing back|front]
                           [--hysteresis DEG] [--debounce MS]

        Opens the camera, lets its exposure settle, takes one frame as a JPEG, closes the
        camera, writes the file and prints its facts as one line of JSON on stdout:
        camera, width, height, bytes, taken_at, orientation, gps, quality, file, and with
        GPS latitude, longitude, altitude, fix_age_s, gps_time (and clock_unsynchronized when
        the wall clock is not synchronised). EXIF carries Make/Model (the camera),
        DateTimeOriginal (local time, with its UTC offset in OffsetTimeOriginal), Orientation
        and GPS (position, altitude, the fix's UTC time, error, speed and direction).
        With --location gpsd the still carries the fix gpsd holds: asked for when the command
        starts, and waited for at most \(LocationOptions.answerWait) from then.
        The file appears complete or not at all (written aside, then moved into place).

        Options:
          -o FILE          where to write the JPEG; default photo-YYYYmmdd-HHMMSS.jpg in the
                           current folder (or in FILE when it is a folder); `-o -` writes the
                           JPEG to stdout and the facts to stderr
          --force          replace FILE if it exists (without it, an existing FILE is an error)
        \(CaptureOptions.help)
        \(RotationOptions.help)
          --settle MS      wait MS milliseconds for the exposure to settle (0 to 60000; default
                           800 on a camera, 0 on the test pattern)
          --settle-frames N
                           wait for N frames instead (0 to 10000)
          --quality Q      JPEG quality, 1 to 100 (default 90)
        \(LocationOptions.help)

        Ctrl-C or SIGTERM before the photo is taken closes the camera and writes nothing
        (exit 130). Exit codes: 0 written, 1 the camera or the file failed at run time,
        2 a bad argument (nothing is opened or written), 130 interrupted.
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let output = try arguments.option("-o", "--output")
        let force = arguments.flag("--force")
        let capture = try CaptureOptions.parse(&arguments)
        let settleMS = try arguments.option("--settle").map { text throws(UsageError) in
            try CaptureOptions.parseInt(text, option: "--settle", range: 0...60_000, what: "milliseconds")
        }
        let settleFrames = try arguments.option("--settle-frames").map { text throws(UsageError) in
            try CaptureOptions.parseInt(text, option: "--settle-frames", range: 0...10_000, what: "a number of frames")
        }
        if settleMS != nil && settleFrames != nil {
            throw UsageError("--settle and --settle-frames: give one or the other")
        }
        let quality = try arguments.option("--quality").map { text throws(UsageError) in
            try CaptureOptions.parseInt(text, option: "--quality", range: 1...100, what: "a JPEG quality")
        } ?? 90
        let location = try LocationOptions.parse(&arguments)
        let rotation = try RotationOptions(&arguments)
        try arguments.finish()

        let target = try OutputTarget.resolve(output, force: force, prefix: "photo", ext: "jpg", allowStdout: true)
        if target.place == .standardOutput && isatty(STDOUT_FILENO) != 0 {
            throw UsageError("-o -: stdout is a terminal; redirect it (plumb photo -o - > photo.jpg) or give a file name")
        }
        let source: CameraSource
        let observer: RotationObserver?
        do {
            source = try capture.source()
            observer = try rotation.makeObserver { StandardStream.error.write("plumb photo: warning: \($0)\n") }
        } catch let error as AccelerometerError {
            throw UsageError("--accelerometer: \(error)")
        } catch {
            return report(error, command: name)
        }
        let settle: Settle = settleFrames.map { .frames($0) }
            ?? .milliseconds(settleMS ?? (source.isTestPattern ? 0 : 800))
        // gpsd is asked for its fix now, while the camera opens and settles; the still waits
        // for the answer only until this deadline.
        let locator = location.provider(command: name)
        locator.start()
        let gpsdDeadline = ContinuousClock.now + LocationProvider.answerWait
        defer { locator.stop() }

        let interrupt = Interrupt(abortMessage: "plumb photo: aborted by a second signal; no photo was written")
        // The sensor is read from the moment the camera opens, as a real one would be: a turn
        // while the exposure settles counts (a replay's timeline starts here too).
        observer?.start()
        defer { observer?.stop() }
        let session: CaptureSession
        do {
            session = try await CaptureSession.open(source, size: capture.size, rate: FrameRate(30))
        } catch {
            return report(error, command: name)
        }
        do {
            try await capture.applyZoom(to: session)
        } catch {
            await session.close()
            return report(error, command: name)
        }
        let taken: (Photo, LocationProvider.Reading, Bool)?
        do {
            taken = try await untilInterrupted(interrupt) {
                switch settle {
                case .milliseconds(let ms) where ms > 0: try await Task.sleep(for: .milliseconds(ms))
                case .frames(let n) where n > 0: try await session.waitForFrames(n)
                default: break
                }
                // The angle at the moment of capture: the sensor's latest (waiting for its
                // first sample if none came yet).
                if let observer {
                    await observer.firstReading()
                    await session.setRotation(observer.angles)
                    observer.stop()
                }
                let answered = await locator.waitForGPSD(until: gpsdDeadline)
                let reading = locator.reading()
                return (try await session.takePhoto(quality: quality, location: reading.location), reading, answered)
            }
        } catch {
            await session.close()
            return report(error, command: name)
        }
        await session.close()
        guard let (photo, reading, answered) = taken else {
            StandardStream.error.write("plumb photo: \(interrupt.signalName): stopped before the photo was taken; nothing was written\n")
            return .aborted
        }

        let written: URL
        do {
            written = try target.write(photo.jpeg, interrupt: interrupt)
        } catch {
            return report(error, command: name)
        }
        if !photo.facts.gps, let why = reading.whyNone {
            let waited = answered ? "" : " (waited \(LocationOptions.answerWait))"
            StandardStream.error.write("plumb photo: warning: the photo has no GPS: \(why)\(waited)\n")
        }
        let facts = FactsReport(facts: photo.facts, file: target.url == nil ? nil : written.path).json
        if target.place == .standardOutput {
            StandardStream.error.write(facts + "\n")
        } else {
            say(facts)
        }
        return .success
    }

    private enum Settle {
        case milliseconds(Int)
        case frames(Int)
    }
}

/// Runs `operation` until it finishes or the first signal arrives; nil when interrupted
/// (the operation is cancelled then, and awaited).
func untilInterrupted<T: Sendable>(_ interrupt: Interrupt,
                                   _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    if interrupt.isRequested { return nil }
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            await interrupt.requested()
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
