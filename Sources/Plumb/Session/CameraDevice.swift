import FoundationEssentials
import Glibc
import GStreamer

/// A V4L2 camera: a device node and the name it reports.
public struct CameraDevice: Sendable, Hashable, Codable {
    /// The device node, e.g. /dev/video0.
    public var path: String
    /// The name the driver reports ("HD Pro Webcam C920"); the path when unknown.
    public var name: String

    public init(path: String, name: String? = nil) {
        self.path = path
        self.name = name ?? path
    }

    /// The cameras GstDeviceMonitor sees now (Video/Source devices with a device node).
    public static func all() -> [CameraDevice] {
        let devices = (try? DeviceMonitor.devices(ofClass: "Video/Source")) ?? []
        return devices.filter { $0.elementFactory != "libcamerasrc" }
            .compactMap { d in d.path.map { CameraDevice(path: $0, name: d.name) } }
    }

    /// Finds a camera by device path or by name (exact, then case-insensitive prefix).
    /// A path that does not name a listed camera is still returned: opening it says why it fails.
    public static func find(_ nameOrPath: String) throws(CameraError) -> CameraDevice {
        if nameOrPath.hasPrefix("/") {
            return all().first { $0.path == nameOrPath } ?? CameraDevice(path: nameOrPath)
        }
        let cameras = all()
        if let exact = cameras.first(where: { $0.name == nameOrPath }) { return exact }
        if let prefix = cameras.first(where: { $0.name.lowercased().hasPrefix(nameOrPath.lowercased()) }) {
            return prefix
        }
        let known = cameras.isEmpty ? "no camera is connected" : "cameras: " + cameras.map(\.name).joined(separator: ", ")
        throw CameraError(device: nameOrPath, cause: .unknownName, detail: known)
    }

    /// This camera as it is now, for opening it again after it was lost: a USB camera
    /// plugged back, or a driver reloaded, may come back under another node (the old one
    /// still held elsewhere, or the number taken meanwhile).
    /// - its node is there, or it is a /dev/v4l/by-id or by-path link (udev points it at
    ///   the new node): itself;
    /// - else a camera of its name among `cameras` (asked only then: listing them probes
    ///   every camera's formats);
    /// - a name given for a camera that was not connected then: found by name now.
    /// Else itself, and opening it says why it fails.
    public func refound(among cameras: () -> [CameraDevice],
                        nodeExists: (String) -> Bool = { DeviceDescriptors.deviceNumber(of: $0) != nil }) -> CameraDevice {
        if path.hasPrefix("/") {
            if path.hasPrefix("/dev/v4l/") || nodeExists(path) || name == path { return self }
            return cameras().first { $0.name == name } ?? self
        }
        let list = cameras()
        return list.first { $0.name == path } ?? list.first { $0.name.lowercased().hasPrefix(path.lowercased()) } ?? self
    }

    /// What the file system and the driver say about the node before GStreamer opens it, so
    /// the common failures get a precise cause without waiting for the driver's streaming.
    /// Returns its device number.
    @discardableResult
    func checkNode() throws(CameraError) -> dev_t {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let err = errno
            if err == EACCES { throw CameraError(device: path, cause: .permissionDenied, detail: String(cString: strerror(err))) }
            throw CameraError(device: path, cause: .notFound, detail: String(cString: strerror(err)))
        }
        guard info.st_mode & S_IFMT == S_IFCHR else {
            throw CameraError(device: path, cause: .notADevice)
        }
        // O_NONBLOCK: a V4L2 open never waits for the device with it.
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let err = errno
            switch err {
            case EACCES, EPERM: throw CameraError(device: path, cause: .permissionDenied, detail: String(cString: strerror(err)))
            case EBUSY: throw CameraError(device: path, cause: .busy, detail: String(cString: strerror(err)))
            case ENOENT, ENXIO, ENODEV: throw CameraError(device: path, cause: .notFound, detail: String(cString: strerror(err)))
            default: throw CameraError(device: path, cause: .failed, detail: String(cString: strerror(err)))
            }
        }
        defer { close(fd) }
        // A character device that is no camera (/dev/null, /dev/zero, /dev/urandom) would
        // otherwise reach v4l2src, whose error on the pipeline's bus ends the running session.
        guard V4L2Capture.isVideoCapture(fileDescriptor: fd) else {
            throw CameraError(device: path, cause: .notACaptureDevice)
        }
        return info.st_rdev
    }
}
