import FoundationEssentials
import Glibc
import PlumbRotation
import Plumb

/// What `[camera] device` and `[rotation] accelerometer` come to on this machine, with a
/// sentence that says which and why — `plumb serve` prints it at start-up, so a daemon
/// that quietly fell back to the test pattern or to a fixed angle is never a surprise.
public struct ServeChoices: Sendable {
    public var camera: CameraSource
    /// "camera: HD Webcam (/dev/video0)", "camera: the test pattern (no camera found)".
    public var cameraSentence: String
    public var accelerometer: AccelerometerSpec
    /// The source `accelerometer` names, checked (a replay file that cannot be read is a config error).
    public var sensor: any Accelerometer
    /// "rotation: iio (/sys/bus/iio/devices/iio:device0)", "rotation: fixed:0 (no accelerometer found)".
    public var rotationSentence: String

    /// Resolves the config against the machine: cameras from the device monitor, IIO
    /// accelerometers from sysfs (`sysfsRoot`), iio-sensor-proxy from its D-Bus service file.
    /// A camera named but absent is not an error here: the daemon keeps retrying it.
    /// `origin` names where the config came from in errors.
    public static func resolve(_ config: ServeConfig, origin: ConfigError.Origin = .text, sysfsRoot: String = "/sys",
                               cameras: () -> [CameraDevice] = { CameraDevice.all() }) throws(ConfigError) -> ServeChoices {
        let (camera, cameraSentence) = resolveCamera(config.camera.device, cameras: cameras)
        let (spec, rotationSentence) = resolveAccelerometer(config.rotation.accelerometer, sysfsRoot: sysfsRoot)
        let sensor: any Accelerometer
        do {
            sensor = try spec.makeAccelerometer(sysfsRoot: sysfsRoot)
        } catch {
            throw ConfigError(origin: origin, group: "rotation", key: "accelerometer", value: spec.description,
                              message: error.description)
        }
        return ServeChoices(camera: camera, cameraSentence: cameraSentence, accelerometer: spec, sensor: sensor,
                            rotationSentence: rotationSentence)
    }

    static func resolveCamera(_ device: ServeConfig.CameraDevice,
                              cameras: () -> [CameraDevice]) -> (CameraSource, String) {
        switch device {
        case .auto:
            if let first = cameras().first {
                return (.device(first), "camera: \(first.name) (\(first.path)), the first camera found")
            }
            return (.testPattern(), "camera: the test pattern (no camera found; [camera] device = auto)")
        case .test:
            return (.testPattern(), "camera: the test pattern ([camera] device = test)")
        case .path(let path):
            let known = cameras().first { $0.path == path }
            let device = known ?? CameraDevice(path: path)
            return (.device(device), "camera: \(device.name == path ? path : "\(device.name) (\(path))")")
        case .name(let name) where name.hasPrefix(CameraSource.libcameraPrefix):
            // A libcamera camera (Raspberry Pi camera modules): opened through libcamerasrc.
            let source = (try? CameraSource.resolve(name)) ?? .libcamera(name)
            return (source, "camera: \(name) (libcamera)")
        case .name(let name) where name.hasPrefix("test:"):
            // A test pattern variant: test:smpte, test:mjpeg, test:clock (the wall clock coded in
            // the picture, for `make bench`'s glass-to-glass latency).
            if let source = try? CameraSource.resolve(name) {
                return (source, "camera: the test pattern \(name) ([camera] device = \(name))")
            }
            return (.device(CameraDevice(path: name, name: name)), "camera: \(name) (no such test pattern)")
        case .name(let name) where name.hasPrefix(ImageCameraSource.prefix):
            // A still image as a live camera; a bad file is named when the daemon opens it.
            do {
                return (try CameraSource.resolve(name), "camera: \(name) (a still image at 30 fps)")
            } catch {
                return (.device(CameraDevice(path: name, name: name)), "camera: \(name) (\(error))")
            }
        case .name(let name):
            if let found = try? CameraDevice.find(name) {
                return (.device(found), "camera: \(found.name) (\(found.path))")
            }
            // Not connected now: the daemon says so and retries; the name stays what was asked.
            return (.device(CameraDevice(path: name, name: name)), "camera: \(name) (not connected now)")
        }
    }

    /// The D-Bus activation file iio-sensor-proxy installs: its presence says the proxy
    /// can answer, without a round trip over the bus at start-up.
    static let sensorProxyServiceFile = "/usr/share/dbus-1/system-services/net.hadess.SensorProxy.service"

    /// The source `[rotation] accelerometer` comes to (nil is `auto`), and the sentence
    /// that says so. A device it names is checked by `resolve`, when the source is made.
    static func resolveAccelerometer(_ spec: AccelerometerSpec?, sysfsRoot: String) -> (AccelerometerSpec, String) {
        switch spec {
        case nil:
            let iio = IIOAccelerometer(device: .any, sysfsRoot: sysfsRoot)
            if let device = try? iio.locate() {
                return (.iio(.path(device.directory)),
                        "rotation: IIO accelerometer \(device.name) (\(device.directory)); [rotation] accelerometer = auto")
            }
            if FileManager.default.fileExists(atPath: sensorProxyServiceFile) {
                return (.sensorProxy(.system),
                        "rotation: iio-sensor-proxy (no IIO accelerometer in \(sysfsRoot); [rotation] accelerometer = auto)")
            }
            return (.fixed(.degrees0),
                    "rotation: fixed at 0 degrees (no accelerometer found; [rotation] accelerometer = auto)")
        case .fixed(let angle):
            return (.fixed(angle), "rotation: fixed at \(angle.degrees) degrees")
        case .iio(.any):
            // The first accelerometer found, whenever there is one: a daemon can wait for it.
            do throws(AccelerometerError) {
                let device = try IIOAccelerometer(device: .any, sysfsRoot: sysfsRoot).locate()
                return (.iio(.any), "rotation: IIO accelerometer \(device.name) (\(device.directory)); [rotation] accelerometer = iio")
            } catch {
                return (.iio(.any), "rotation: iio, none yet: \(error); looking for one, the angle holds at 0 meanwhile")
            }
        case let spec?:
            return (spec, "rotation: \(spec)")
        }
    }
}
