import FoundationEssentials
import Glibc

/// This process's descriptors on one character device, found by its device number (so a
/// node unplugged, renamed or deleted meanwhile is still recognised).
///
/// Why: when a V4L2 camera fails while streaming (unplugged, or its driver's fatal error),
/// GStreamer 1.22's v4l2src can keep the device open after its pipeline is down — its
/// buffer pool holds a duplicate of the descriptor while the driver refuses to stop the
/// stream — so the driver stays in use (`rmmod` fails, a USB camera plugged back gets
/// another node) until the process ends (seen on vivid in the kernel tests).
public enum DeviceDescriptors {
    /// The device number of the character device at `path`, nil when it is none.
    public static func deviceNumber(of path: String) -> dev_t? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFCHR else { return nil }
        return info.st_rdev
    }

    /// The descriptors of this process open on character device `device`.
    static func open(on device: dev_t) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).filter { fd in
            var info = stat()
            return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR && info.st_rdev == device
        }
    }

    /// Lets go of `device`: each descriptor still open on it is made a descriptor of
    /// /dev/null (dup2), which the device's driver no longer counts. Not closed: whoever kept
    /// it may close it later, and must not close a number reused meanwhile for another file.
    /// Returns how many there were.
    @discardableResult
    static func release(_ device: dev_t) -> Int {
        let held = open(on: device)
        guard !held.isEmpty else { return 0 }
        let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return 0 }
        defer { close(null) }
        return held.filter { dup2(null, $0) >= 0 }.count
    }
}
