import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine
import PlumbRotation

/// `plumb scan [--camera ...] [--types LIST] [--region X,Y,W,H] [--rate N] [--once] [--seconds N]`
///
/// Reads barcodes and QR codes from the camera and prints one JSON line per detection
/// (a code in view is one detection until it has been out of view for a second).
enum ScanCommand: Command {
    static let name = "scan"
    static let summary = "read barcodes and QR codes from the camera, one JSON line per detection"
    static var watchedSignals: [Int32] { Interrupt.signals }
    static let help = """
        Usage: plumb scan [--camera NAME|PATH|test|image:FILE] [--size WxH] [--zoom F] [--types LIST] [--control NAME=VALUE]...
                          [--region X,Y,W,H] [--rate N] [--forget S] [--once] [--seconds N]
                          [--accelerometer SPEC] [--mount ANGLE] [--facing back|front]
                          [--hysteresis DEG] [--debounce MS]

        Opens the camera and scans its frames for codes until Ctrl-C, --seconds or (with
        --once) the first code. Each detection is one line of JSON on stdout: symbology,
        text (the data when it is valid UTF-8) or base64 (otherwise), quality (zbar's),
        bounds {x, y, width, height} in normalised coordinates of the upright picture (the
        capture angle applied), time. A code that stays in view is reported once; it is
        reported again after it has been out of view for more than --forget seconds.

        Options:
        \(CaptureOptions.help)
          --types LIST     the symbologies, comma-separated: \(Symbology.allCases.map(\.rawValue).joined(separator: ", "))
                           (default \(Symbology.allCases.filter { Symbology.defaults.contains($0) }.map(\.rawValue).joined(separator: ",")))
          --region X,Y,W,H the part of the upright picture scanned, normalised 0 to 1 (default 0,0,1,1)
          --rate N         frames scanned per second, 1 to 60 (default 10)
          --forget S       seconds a code must be out of view to be reported again (default 1)
          --once           stop after the first detection
          --seconds N      stop after N seconds (0.1 to 86400)
        \(RotationOptions.help)

        Exit codes: 0 done, 1 the camera failed (or --once found nothing within --seconds),
        2 a bad argument, 130 aborted by a second signal.
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let capture = try CaptureOptions.parse(&arguments)
        var options = ScanOptions()
        do {
            if let text = try arguments.option("--types") { options.types = try Symbology.parseList(text) }
            if let text = try arguments.option("--region") { options.region = try NormalizedRect.parse(text) }
        } catch let error as CaptureError {
            throw UsageError("\(error)")
        }
        if let text = try arguments.option("--rate") {
            options.rate = try CaptureOptions.parseInt(text, option: "--rate", range: 1...60, what: "frames per second")
        }
        if let text = try arguments.option("--forget") {
            guard let s = Double(text), s >= 0, s <= 3600 else {
                throw UsageError("--forget \(text): expected a number of seconds from 0 to 3600")
            }
            options.forgetAfter = .milliseconds(Int((s * 1000).rounded()))
        }
        let once = arguments.flag("--once")
        let seconds = try arguments.option("--seconds").map { text throws(UsageError) -> Double in
            guard let s = Double(text), s >= 0.1, s <= 86_400 else {
                throw UsageError("--seconds \(text): expected a number of seconds from 0.1 to 86400")
            }
            return s
        }
        let rotation = try RotationOptions(&arguments)
        try arguments.finish()

        let source: CameraSource
        let observer: RotationObserver?
        let output: ScanOutput
        do {
            source = try capture.source()
            observer = try rotation.makeObserver { StandardStream.error.write("plumb scan: warning: \($0)\n") }
            output = try ScanOutput(options: options)
        } catch let error as AccelerometerError {
            throw UsageError("--accelerometer: \(error)")
        } catch {
            return report(error, command: name)
        }
        let interrupt = Interrupt(abortMessage: "plumb scan: aborted by a second signal")
        let session: CaptureSession
        do {
            session = try await capture.openSession(source, following: observer, attaching: output)
        } catch {
            return report(error, command: name)
        }
        StandardStream.error.write("plumb scan: scanning \(source.identifier) for "
            + options.types.map(\.rawValue).sorted().joined(separator: ",") + " in \(options.region) at \(options.rate) fps; Ctrl-C stops\n")
        // A signal or the time stops the scan by detaching the output, which ends `detections`.
        let stop = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await interrupt.requested() }
                if let seconds { group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } }
                await group.next()
                group.cancelAll()
            }
            try? await session.detach(output)
        }
        var count = 0
        for await detection in output.detections {
            StandardStream.output.write(detection.jsonLine + "\n")
            count += 1
            if once { break }
        }
        stop.cancel()
        try? await session.detach(output)
        await stop.value
        await session.close()
        if interrupt.isRequested {
            StandardStream.error.write("plumb scan: \(interrupt.signalName): stopped after \(count) detection(s)\n")
        }
        if count == 0 && !interrupt.isRequested {
            // Said with the frames really scanned: "nothing found" from a camera that gave none is no answer.
            StandardStream.error.write("plumb scan: no code found within \(seconds.map { "\($0.clean) s" } ?? "the time") "
                + "(\(output.framesScanned) frames of \(source.identifier) scanned)\n")
            if once { return .failure }
        }
        return .success
    }
}
