import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import PlumbDescription
import PlumbLocation
import PlumbMedia
import Synchronization
import PlumbRotation

/// Stills from the running session, without restarting anything: a persistent branch
/// `queue ! appsink` sees every frame and hands the next one to whoever asked, and a
/// `JPEGEncoder` turns it into a JPEG with EXIF — Make/Model, DateTimeOriginal with its
/// UTC offset, Orientation from the current rotation (pixels are never rotated), GPS when
/// given (Plumb's own GPS IFD, `ExifTIFF.setGPS`), and the exposure a V4L2 camera reports
/// as the frame arrives (`CameraControlReading`: ExposureTime, ExposureMode, WhiteBalance, ISO).
///
/// Requests waiting when a frame arrives are all served from that frame, each encoded
/// on its own (its quality, its location) and in the order they were made.
public final class PhotoOutput: CaptureOutput {
    public let kind = "photo"
    /// Only the newest frame matters.
    public var queueLimit: Int { 1 }

    private struct Request {
        var quality: Int
        var location: GeoLocation?
        var marks: [NormalizedRect]
        var shot: OneShot<Photo>
    }

    private struct State {
        var requests: [Request] = []
        var angle = RotationAngle.degrees0
        var camera: CameraSource?
        var frames = 0
        var attached = false
    }

    private let state = Mutex(State())
    private let encoder = JPEGEncoder()
    private let tap = Mutex<CameraJPEGTap?>(nil)

    /// An MJPEG camera's own JPEGs: a still is then the camera's JPEG of its frame with the
    /// EXIF added (nothing decoded or re-encoded), when that JPEG stands on its own.
    var cameraJPEG: CameraJPEGTap? {
        get { tap.withLock { $0 } }
        set { tap.withLock { $0 = newValue } }
    }

    private let zoomCrop = Mutex<ZoomCrop?>(nil)

    /// The session's zoom, for the factor each still records.
    var zoom: ZoomCrop? {
        get { zoomCrop.withLock { $0 } }
        set { zoomCrop.withLock { $0 = newValue } }
    }

    public init() {}

    /// JPEG encode pipelines not yet finalized (0 when idle).
    var liveEncodePipelines: Int { encoder.livePipelines.value }

    /// Make (EXIF) for frames from `camera`.
    static func make(for camera: CameraSource) -> String {
        camera.isTestPattern ? "Plumb" : "V4L2"
    }

    public func build(in bin: Bin, format: CaptureFormat, camera: CameraSource) throws -> BranchEnds {
        // Streaming thread: the frame goes to the encoder's queue.
        let sink = try AppSink.newestFrame(name: "frames") { [weak self] sample in self?.frameArrived(sample) }
        try bin.add(sink)
        state.withLock {
            $0.camera = camera
            $0.attached = true
        }
        return BranchEnds(entry: sink, sink: sink)
    }

    public func apply(rotation: RotationAngle) {
        state.withLock { $0.angle = rotation }
    }

    public func didDetach(error: (any Error)?) {
        let waiting = state.withLock { s in
            s.attached = false
            defer { s.requests.removeAll() }
            return s.requests
        }
        for r in waiting { r.shot.fail(error ?? CaptureError.closed) }
    }

    /// A JPEG of the next frame. `quality` is 1-100. `marks` (rectangles of the upright
    /// picture, motion's boxes) are drawn on it as outlines, turned into the frame by the
    /// capture angle as the EXIF Orientation turns the frame upright; a camera's own JPEG is
    /// then decoded to draw on.
    public func takePhoto(quality: Int = 90, location: GeoLocation? = nil, marks: [NormalizedRect] = [],
                          timeout: Duration = .seconds(10)) async throws -> Photo {
        guard (1...100).contains(quality) else {
            throw CaptureError.invalidArgument("JPEG quality \(quality) is out of range (1 to 100)")
        }
        if let location, !location.isValid {
            throw CaptureError.invalidArgument(
                "location \(location.latitude), \(location.longitude) is out of range (latitude -90...90, longitude -180...180)")
        }
        let shot = OneShot<Photo>()
        try state.withLock { s in
            guard s.attached else { throw CaptureError.notAttached(kind) }
            s.requests.append(Request(quality: quality, location: location, marks: marks, shot: shot))
        }
        do {
            return try await shot.value(timeout: timeout, what: "a photo")
        } catch {
            state.withLock { s in s.requests.removeAll { $0.shot === shot } }
            throw error
        }
    }

    private func frameArrived(_ sample: Sample) {
        let (requests, angle, camera, number) = state.withLock { s in
            s.frames += 1
            defer { s.requests.removeAll() }
            return (s.requests, s.angle, s.camera, s.frames)
        }
        guard !requests.isEmpty, let camera else { return }
        let takenAt = Date()
        let clockSynchronized = WallClock.isSynchronized()
        let size = sample.videoSize ?? (0, 0)
        let pts = sample.buffer?.pts
        // The camera's own JPEG of this frame, when it has one that a viewer can read alone.
        let own = pts.flatMap { cameraJPEG?.jpeg(at: $0) }.flatMap { JPEGEncoder.isStandalone($0) ? $0 : nil }
        // The exposure the camera reports for this frame, read now (gain under auto moves).
        let controls = CameraControlReading.read(camera)
        let crop = zoom
        let factor = pts.flatMap { crop?.factor(at: $0) } ?? crop?.current.factor ?? 1
        for request in requests {
            let tags: TagList
            do {
                tags = try Self.tags(camera: camera, takenAt: takenAt, angle: angle, zoom: factor)
            } catch {
                request.shot.fail(CaptureError.wrap(error))
                continue
            }
            let quality = request.quality, location = request.location, shot = request.shot
            let marks = request.marks.map { $0.turned(clockwise: angle.inverse) }
            let passed = marks.isEmpty ? own : nil
            encoder.submit(JPEGEncoder.Job(sample: sample, quality: quality, tags: tags, cameraJPEG: passed,
                                           marks: marks) { result in
                shot.resolve(result.flatMap { Self.rewritingExif($0, takenAt: takenAt, location: location, controls: controls) }.map { jpeg in
                    var facts = PhotoFacts(camera: camera.name, width: size.0, height: size.1, bytes: jpeg.count,
                                           takenAt: takenAt.iso8601Milliseconds, orientation: angle.exifOrientation,
                                           gps: false, quality: quality)
                    if passed != nil { facts.cameraJPEG = true }
                    if factor != 1 { facts.zoom = factor }
                    facts.set(controls)
                    facts.set(location)
                    facts.clockSynchronized = clockSynchronized
                    return Photo(jpeg: jpeg, facts: facts, frameTime: pts, frameNumber: number)
                })
            })
        }
    }

    /// The JPEG with its EXIF rewritten by Plumb's own TIFF writer: the times again, with
    /// their UTC offset (jifmux writes DateTimeOriginal as local time without the EXIF 2.31
    /// OffsetTime* tags, which leaves a reader of the EXIF guessing the instant), the tags
    /// EXIF 2.32 requires that jifmux leaves out (the image's size from its own frame
    /// header, resolution, components, colour space), and the GPS IFD when there is a
    /// location (jifmux's has neither the GPS time, the positioning error, speed nor direction).
    static func rewritingExif(_ jpeg: Data, takenAt: Date, location: GeoLocation?, controls: CameraControlReading? = nil,
                              timeZone: TimeZone? = nil) -> Result<Data, any Error> {
        Result { () throws(MediaError) -> Data in
            let frame = try JPEGExifWriter.frame(of: jpeg)
            return try JPEGExifWriter.editing(jpeg) { exif in
                exif.setTimes(takenAt, timeZone: timeZone ?? .local(at: takenAt))
                exif.setImage(frame)
                if let location { exif.setGPS(location) }
                if let controls { exif.setExposure(Self.exposure(controls)) }
            }
        }.mapError { CaptureError.outputFailed(output: "photo", PipelineFailure(message: "writing the EXIF: \($0)")) }
    }

    /// The EXIF exposure tags of what the camera reports.
    static func exposure(_ controls: CameraControlReading) -> ExifTIFF.Exposure {
        let programs: [String: ExifTIFF.Exposure.Program] = [
            "auto": .normal, "manual": .manual, "shutter-priority": .shutterPriority, "aperture-priority": .aperturePriority,
        ]
        return ExifTIFF.Exposure(time: controls.exposureTimeUnits.map { (UInt32(clamping: $0), 10_000) },
                                 program: controls.exposureMode.flatMap { programs[$0] },
                                 autoWhiteBalance: controls.whiteBalance.map { $0 == "auto" }, iso: controls.iso)
    }

    /// libgsttag registers its capturing-* tags (GST_TAG_CAPTURING_DIGITAL_ZOOM_RATIO) only
    /// once jifmux has handled a tag list: registered here first, under the same name and type.
    private static let captureTagsRegistered: Bool = (try? TagList.registerDouble(
        "capturing-digital-zoom-ratio", nick: "capturing digital zoom ratio",
        blurb: "Digital zoom ratio used when capturing an image")) != nil

    /// The tags jifmux turns into EXIF (the GPS tags are Plumb's: `rewritingExif`).
    static func tags(camera: CameraSource, takenAt: Date, angle: RotationAngle, zoom: Double = 1) throws -> TagList {
        var tags = TagList()
        try tags.set(TagList.deviceManufacturer, make(for: camera))
        try tags.set(TagList.deviceModel, camera.name)
        try tags.set(TagList.dateTime, takenAt, timeZone: .local(at: takenAt))
        try tags.set(TagList.imageOrientation, angle.imageOrientationTag)
        try tags.set(TagList.applicationName, "Plumb")
        // EXIF DigitalZoomRatio (GST_TAG_CAPTURING_DIGITAL_ZOOM_RATIO), only when zoomed.
        if zoom != 1 {
            _ = captureTagsRegistered
            try tags.set("capturing-digital-zoom-ratio", zoom)
        }
        return tags
    }
}
