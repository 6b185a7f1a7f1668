import FoundationEssentials
import Glibc
import PlumbBase
import Soup
import Plumb
import PlumbRotation

/// `POST /camera?device=D[&facing=back|front][&size=WxH]`: switches the running session to
/// another camera live (`CaptureSession.switchCamera(to:size:)`): the preview, RTSP
/// consumers and a running recording stay attached. `device` takes what `[camera] device`
/// takes; `facing` defaults to `[rotation] facing`; `size` asks the new camera for another
/// size than the running one — the recording then goes on in a new file, as it does when
/// the new camera cannot give the running size. A camera that cannot open leaves the old one running
/// and the answer names why (404 unknown, 400 no camera at all such as /dev/null, 503 it would
/// not open). `image:FILE` only takes pictures in `[camera] image-folder` (403 otherwise).
struct CameraRoutes: Sendable {
    let camera: CameraSlot
    let observer: RotationObserver
    let defaultFacing: CameraFacing
    /// Where `image:` pictures may come from (`[camera] image-folder`).
    let imageFolder: ImageFolder
    /// Sets the kept controls on the camera switched to.
    let controls: CameraControlKeeper
    let publish: @Sendable (ServiceEvent) -> Void
    let log: @Sendable (String) -> Void

    func add(to router: inout Router) {
        router.post("/camera") { [camera, observer, defaultFacing, imageFolder, controls, publish, log] request in
            guard let device = request.query["device"], !device.isEmpty else {
                throw APIError.badRequest("give device=D: test, test:smpte, image:FILE, a /dev/video path or a camera's name")
            }
            var facing = defaultFacing
            if let text = request.query["facing"] {
                guard let given = CameraFacing(rawValue: text) else {
                    throw APIError.badRequest("facing=\(text) must be back or front")
                }
                facing = given
            }
            var size: VideoSize?
            if let text = request.query["size"] {
                guard let given = parseSize(text) else {
                    throw APIError.badRequest("size=\(text) must be WIDTHxHEIGHT, both even, "
                                              + "\(ServeConfig.sizeRange.lowerBound) to \(ServeConfig.sizeRange.upperBound)")
                }
                size = given
            }
            // Before the picture is opened: whether a file outside the folder is an image is not told either.
            var name = device
            if device.hasPrefix(ImageCameraSource.prefix) {
                name = ImageCameraSource.prefix + (try imageFolder.resolve(String(device.dropFirst(ImageCameraSource.prefix.count))))
            }
            let source: CameraSource
            do throws(CameraError) {
                source = try CameraSource.resolve(name)
            } catch {
                switch error.cause {
                case .notFound, .unknownName: throw APIError.notFound(error.description)
                default: throw APIError.badRequest(error.description)
                }
            }
            let session = try camera.session()
            let done: CameraSwitch
            do {
                done = try await session.switchCamera(to: source, size: size)
            } catch CaptureError.camera(let why) where why.cause == .notFound {
                throw APIError.notFound(why.description + "; the camera before it goes on")
            } catch CaptureError.camera(let why) where why.cause == .notADevice || why.cause == .notACaptureDevice {
                throw APIError.badRequest(why.description + "; the camera before it goes on")
            } catch {
                throw APIError.from(error)
            }
            camera.switchedCamera = source
            camera.switchedSize = await session.format.size
            observer.setFacing(facing)
            // The new camera's controls: what it lacks or refuses is reported (log, /status), not failed.
            _ = controls.cameraOpened(session)
            let record = CameraSwitchRecord(from: done.from, to: done.to, restartSeconds: done.restartSeconds,
                                            facing: facing.rawValue)
            log("camera switched: \(done.from) -> \(done.to) (\(facing), the source restarted in \(String(cFormat: "%.3f", done.restartSeconds)) s)")
            publish(.cameraSwitched(record))
            return .json(record)
        }
    }
}

/// What `POST /camera` answers and the `camera-switched` event carries.
public struct CameraSwitchRecord: Sendable, Equatable, Encodable {
    public var from: String
    public var to: String
    /// How long the tee went without frames while the new source started.
    public var restartSeconds: Double
    public var facing: String
}
