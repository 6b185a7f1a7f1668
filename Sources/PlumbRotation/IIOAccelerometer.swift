import FoundationEssentials
import Glibc
import PlumbBase

/// `iio[:PATH|:NAME]`: a Linux IIO accelerometer read by polling sysfs.
///
/// The device is the first IIO device with `in_accel_{x,y,z}_raw`, the one whose
/// `name` file matches, or the directory given. `sysfsRoot` is injectable so tests
/// run on a fake tree. When the device disappears, one `.unavailable` is
/// reported, the last angle holds, and the device is looked for again until it
/// comes back (`.available`).
public struct IIOAccelerometer: Accelerometer {
    public enum Device: Sendable, Equatable, CustomStringConvertible {
        /// The first IIO device that is an accelerometer.
        case any
        /// The device whose `name` file reads this ("lis3dh").
        case named(String)
        /// A device directory ("/sys/bus/iio/devices/iio:device0"); "iio:deviceN" means one under the sysfs root.
        case path(String)

        public var description: String {
            switch self {
            case .any: return "iio"
            case .named(let name): return "iio:\(name)"
            case .path(let path): return "iio:\(path)"
            }
        }
    }

    public let device: Device
    public let sysfsRoot: String
    public let pollInterval: Duration

    public init(device: Device = .any, sysfsRoot: String = "/sys", pollInterval: Duration = .milliseconds(100)) {
        self.device = device
        self.sysfsRoot = sysfsRoot
        self.pollInterval = max(pollInterval, .milliseconds(1))
    }

    public var description: String { device.description }

    /// Finds and opens the device now; the error lists what was found instead.
    public func locate() throws(AccelerometerError) -> IIODevice {
        let base = "\(sysfsRoot)/bus/iio/devices"
        switch device {
        case .path(let path):
            let directory = path.hasPrefix("/") ? path : "\(base)/\(path)"
            guard FileManager.default.fileExists(atPath: directory) else {
                let found = inventory().map { "there are \($0.joined(separator: ", ")) under \(base)" }
                    ?? "there are no IIO devices under \(base) at all"
                throw AccelerometerError("no IIO device at \(directory); \(found)")
            }
            return try IIODevice(directory: directory)
        case .any, .named:
            for directory in IIODevice.candidates(sysfsRoot: sysfsRoot) {
                if case .named(let wanted) = device, IIODevice.name(in: directory) != wanted { continue }
                if let opened = try? IIODevice(directory: directory) { return opened }
                if case .named = device { return try IIODevice(directory: directory) }  // its error says why
            }
            let what = device == .any ? "no IIO accelerometer" : "no IIO device named \"\(device.description.dropFirst(4))\""
            let found = inventory().map { "found " + $0.joined(separator: ", ") } ?? "no IIO devices at all"
            throw AccelerometerError("\(what) under \(base) (\(found))")
        }
    }

    /// The IIO devices under the sysfs root as "iio:device0 (bmp280)", nil when there are none.
    func inventory() -> [String]? {
        let seen = IIODevice.candidates(sysfsRoot: sysfsRoot).map { directory in
            let name = IIODevice.name(in: directory)
            return "\(Path.name(directory)) (\(name.isEmpty ? "no name" : name))"
        }
        return seen.isEmpty ? nil : seen
    }

    public func events() -> AsyncStream<AccelerometerEvent> {
        let (stream, continuation) = AsyncStream<AccelerometerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let source = self
        let task = Task {
            let clock = ContinuousClock()
            let start = clock.now
            var open: IIODevice?
            var reportedUnavailable = false
            // Looking for a missing device again is cheaper than a poll but needs no hurry.
            let retryInterval = max(pollInterval, .milliseconds(250))
            while !Task.isCancelled {
                if open == nil {
                    do throws(AccelerometerError) {
                        let device = try source.locate()
                        open = device
                        reportedUnavailable = false
                        continuation.yield(.available("\(device.name.isEmpty ? "iio" : device.name) at \(device.directory)"))
                    } catch {
                        if !reportedUnavailable {
                            continuation.yield(.unavailable(error.message))
                            reportedUnavailable = true
                        }
                        try? await Task.sleep(for: retryInterval)
                        continue
                    }
                }
                guard let device = open else { continue }
                let time = clock.now - start
                switch device.read() {
                case let .sample(x, y, z):
                    do throws(MalformedSample) {
                        continuation.yield(.sample(try AccelerometerSample.validated(time: time, x: x, y: y, z: z)))
                    } catch {
                        continuation.yield(.dropped(error))
                    }
                case .malformed(let why):
                    continuation.yield(.dropped(why))
                case .gone(let why):
                    open = nil
                    reportedUnavailable = true
                    continuation.yield(.unavailable("\(device.name.isEmpty ? "IIO device" : device.name) went away: \(why)"))
                    continue
                }
                try? await Task.sleep(for: pollInterval)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
