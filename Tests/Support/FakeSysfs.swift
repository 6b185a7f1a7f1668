import Foundation

/// A fake sysfs tree: ROOT/bus/iio/devices/iio:deviceN with attribute files.
public struct FakeSysfs {
    public let root: URL

    public init(root: URL) { self.root = root }

    public func device(_ n: Int) -> URL { root.appendingPathComponent("bus/iio/devices/iio:device\(n)") }

    public func write(_ n: Int, _ file: String, _ value: String) throws {
        let dir = device(n)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // Atomic (rename) so a poll never sees a half-written value.
        try (value + "\n").write(to: dir.appendingPathComponent(file), atomically: true, encoding: .utf8)
    }

    public func raw(_ n: Int, _ x: String, _ y: String, _ z: String) throws {
        try write(n, "in_accel_x_raw", x)
        try write(n, "in_accel_y_raw", y)
        try write(n, "in_accel_z_raw", z)
    }

    public func remove(_ n: Int) throws { try FileManager.default.removeItem(at: device(n)) }
}
