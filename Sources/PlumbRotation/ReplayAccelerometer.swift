import FoundationEssentials
import Glibc
import PlumbBase

/// `replay:FILE` (or `replay:-` for standard input): recorded samples, one per
/// line as `t_ms x y z` (whitespace or commas between fields; blank lines and
/// `#` comments are skipped), replayed with their timing, optionally faster.
///
/// A line that does not parse, or whose time goes backwards, is dropped and
/// reported; the replay goes on.
public struct ReplayAccelerometer: Accelerometer {
    public enum Input: Sendable, Equatable {
        case file(String)
        case standardInput
    }

    public let input: Input
    /// 2 replays twice as fast; timestamps of the samples themselves are kept.
    public let speed: Double

    /// Checks that the file can be read, so a typo fails at start-up with a clear message.
    public init(input: Input, speed: Double = 1) throws(AccelerometerError) {
        guard speed > 0, speed.isFinite else {
            throw AccelerometerError("replay speed must be a positive number, not \(speed)")
        }
        if case .file(let path) = input, !FileManager.default.isReadableFile(atPath: path) {
            let why = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "does not exist"
            throw AccelerometerError("replay file \(path) \(why)")
        }
        self.input = input
        self.speed = speed
    }

    public var description: String {
        switch input {
        case .file(let path): return "replay:\(path)"
        case .standardInput: return "replay:-"
        }
    }

    public func events() -> AsyncStream<AccelerometerEvent> {
        let lines: AsyncStream<String>
        switch input {
        case .standardInput:
            lines = LineReader.lines(of: STDIN_FILENO, closeWhenDone: false)
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                return AsyncStream { c in
                    c.yield(.unavailable("cannot open \(path): \(reason)"))
                    c.finish()
                }
            }
            lines = LineReader.lines(of: fd, closeWhenDone: true)
        }
        let speed = self.speed, name = description
        let (stream, continuation) = AsyncStream<AccelerometerEvent>.makeStream(bufferingPolicy: .unbounded)
        let task = Task {
            continuation.yield(.available(name))
            let clock = ContinuousClock()
            var origin: (instant: ContinuousClock.Instant, time: Duration)?
            var previous: Duration?
            for await line in lines {
                if Task.isCancelled { break }
                let parsed: ReplayLine
                do throws(MalformedSample) {
                    guard let p = try ReplayLine.parse(line) else { continue }
                    parsed = p
                } catch {
                    continuation.yield(.dropped(error))
                    continue
                }
                if let previous, parsed.time < previous {
                    continuation.yield(.dropped(.timeWentBackwards(parsed.time)))
                    continue
                }
                previous = parsed.time
                // Honour the timing relative to the first sample, scaled by the speed.
                if let origin {
                    let due = origin.instant + (parsed.time - origin.time) / speed
                    if due > clock.now { try? await clock.sleep(until: due) }
                } else {
                    origin = (clock.now, parsed.time)
                }
                if Task.isCancelled { break }
                do throws(MalformedSample) {
                    continuation.yield(.sample(try AccelerometerSample.validated(
                        time: parsed.time, x: parsed.x, y: parsed.y, z: parsed.z)))
                } catch {
                    continuation.yield(.dropped(error))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// One `t_ms x y z` line, before validation of the vector.
struct ReplayLine: Equatable {
    var time: Duration
    var x: Double
    var y: Double
    var z: Double

    /// nil for blank and comment lines; throws for a line that is not four numbers.
    static func parse(_ line: String) throws(MalformedSample) -> ReplayLine? {
        let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
        if fields.isEmpty { return nil }
        guard fields.count == 4 else {
            throw .nonNumeric(line.trimmed)
        }
        var values: [Double] = []
        for field in fields {
            guard let v = Double(field) else { throw .nonNumeric(String(field)) }
            values.append(v)
        }
        guard values[0].isFinite, values[0] >= 0 else { throw .nonNumeric(String(fields[0])) }
        return ReplayLine(time: .microseconds(Int64((values[0] * 1000).rounded())),
                          x: values[1], y: values[2], z: values[3])
    }
}
