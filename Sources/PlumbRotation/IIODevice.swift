import FoundationEssentials
import Glibc

/// One Linux IIO accelerometer in sysfs (`/sys/bus/iio/devices/iio:deviceN`):
/// its name, per-axis scale and offset, and mount matrix, read when opened.
///
/// A reading is `(raw + offset) * scale` per axis (m/s², the IIO ABI), then
/// turned into the device frame by the mount matrix.
public struct IIODevice: Sendable, Equatable {
    public let directory: String
    /// The `name` file: the driver's name for the chip ("lis3dh", "mma8452" ...).
    public let name: String
    public let scale: [Double]
    public let offset: [Double]
    public let mountMatrix: MountMatrix

    static let axes = ["x", "y", "z"]

    /// Opens the device in `directory`: it must have `in_accel_{x,y,z}_raw`.
    public init(directory: String) throws(AccelerometerError) {
        self.directory = directory
        let name = Self.name(in: directory)
        self.name = name
        for axis in Self.axes where !FileManager.default.fileExists(atPath: "\(directory)/in_accel_\(axis)_raw") {
            throw AccelerometerError("\(directory) (\(name.isEmpty ? "no name" : name)) has no in_accel_\(axis)_raw: "
                + "it is not an accelerometer")
        }
        var scale: [Double] = [], offset: [Double] = []
        for axis in Self.axes {
            scale.append(try Self.number(in: directory, ["in_accel_\(axis)_scale", "in_accel_scale"], default: 1))
            offset.append(try Self.number(in: directory, ["in_accel_\(axis)_offset", "in_accel_offset"], default: 0))
        }
        guard scale.allSatisfy({ $0 != 0 }) else {
            throw AccelerometerError("\(directory): a scale of 0 makes every reading zero")
        }
        self.scale = scale
        self.offset = offset
        var matrix = MountMatrix.identity
        for file in ["in_accel_mount_matrix", "mount_matrix"] {
            guard let text = try? Sysfs.read("\(directory)/\(file)") else { continue }
            do throws(AccelerometerError) {
                matrix = try MountMatrix(parsing: text)
            } catch {
                throw AccelerometerError("\(directory)/\(file): \(error.message)")
            }
            break
        }
        self.mountMatrix = matrix
    }

    /// The `name` file of the device in `directory`, "" when it has none.
    static func name(in directory: String) -> String {
        (try? Sysfs.read(directory + "/name"))?.trimmed ?? ""
    }

    /// The first of `files` that exists, as a number; `default` when none exists.
    private static func number(in directory: String, _ files: [String], default value: Double)
        throws(AccelerometerError) -> Double
    {
        for file in files {
            let text: String
            do throws(Sysfs.ReadError) { text = try Sysfs.read("\(directory)/\(file)") } catch { continue }
            guard let v = Double(text.trimmed), v.isFinite else {
                throw AccelerometerError("\(directory)/\(file) reads \"\(text.trimmed)\", which is not a number")
            }
            return v
        }
        return value
    }

    /// What one poll found.
    public enum Reading: Sendable, Equatable {
        case sample(x: Double, y: Double, z: Double)
        case malformed(MalformedSample)
        /// The files are gone or unreadable: the device went away.
        case gone(String)
    }

    /// Reads the three raw channels once, in the device frame.
    public func read() -> Reading {
        var values: [Double] = []
        for (i, axis) in Self.axes.enumerated() {
            let text: String
            do throws(Sysfs.ReadError) {
                text = try Sysfs.read("\(directory)/in_accel_\(axis)_raw")
            } catch {
                return .gone("\(directory)/in_accel_\(axis)_raw: \(error)")
            }
            guard let raw = Double(text.trimmed) else { return .malformed(.nonNumeric(text.trimmed)) }
            guard raw.isFinite else { return .malformed(.nonFinite) }
            values.append((raw + offset[i]) * scale[i])
        }
        let v = mountMatrix.apply((values[0], values[1], values[2]))
        return .sample(x: v.0, y: v.1, z: v.2)
    }

    /// The IIO devices under `sysfsRoot` (`ROOT/bus/iio/devices/iio:deviceN`), in number order.
    public static func candidates(sysfsRoot: String) -> [String] {
        let base = sysfsRoot + "/bus/iio/devices"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return entries.filter { $0.hasPrefix("iio:device") }
            .sorted { (Int($0.dropFirst(10)) ?? .max, $0) < (Int($1.dropFirst(10)) ?? .max, $1) }
            .map { "\(base)/\($0)" }
    }
}

/// Reading small sysfs attribute files.
enum Sysfs {
    enum ReadError: Error, CustomStringConvertible {
        case failed(path: String, errno: Int32)

        var description: String {
            switch self {
            case let .failed(path, code): return "cannot read \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The whole file as text (sysfs attributes are a page at most).
    static func read(_ path: String) throws(ReadError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .failed(path: path, errno: errno) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .failed(path: path, errno: errno) }
            if n == 0 { break }
            total += n
        }
        return String(decoding: bytes[0..<total], as: UTF8.self)
    }
}
