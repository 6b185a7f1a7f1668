import FoundationEssentials
import Glibc
import Soup
import Plumb
import PlumbLocation

/// `[motion]` in the API (`MotionService` holds the detector):
///
/// - `GET /motion`: the settings, the mask in force, the state and where the newest motion
///   frame saw motion
/// - `PATCH /motion` with `{"mask": [[x, y, width, height], ...]}` (normalised rectangles of
///   the upright picture, `[]` for none): the running detector's mask, from its next frame
///   on, without restarting the camera; answers as `GET /motion`, with the `[motion] mask`
///   line that keeps it across restarts (the config file is not rewritten)
/// - `GET /motion/snapshot`: a still (the `POST /photo` path) with the boxes of the current
///   motion, or of the last one, drawn; `X-Plumb-Motion` says which, `X-Plumb-Photo` the still
///
/// 409 while `[motion]` is off; 400 for a bad mask, naming the rectangle; the camera's 503.
struct MotionRoutes: Sendable {
    let camera: CameraSlot
    let motion: MotionService
    let location: LocationProvider

    /// More rectangles than anyone draws; bounds the work of one frame's mask.
    static let maxRectangles = 32

    func add(to router: inout Router) {
        router.get("/motion") { [motion] _ in .json(Self.settings(motion)) }
        router.add("PATCH", "/motion") { [motion] request in
            try Self.requireEnabled(motion)
            let mask = try Self.mask(request.body)
            motion.setMask(mask)
            return .json(Self.settings(motion))
        }
        router.get("/motion/snapshot") { [camera, motion, location] _ in
            try Self.requireEnabled(motion)
            let session = try camera.session()
            let (inMotion, last) = motion.sighting
            let photo: Photo
            do {
                photo = try await session.takePhoto(location: location.current(), marks: last?.boxes ?? [])
            } catch {
                throw APIError.from(error)
            }
            let seen = Snapshot(state: inMotion ? "motion" : "idle", boxes: last?.boxes ?? [],
                                fraction: last.map { ($0.fraction * 10_000).rounded() / 10_000 },
                                time: last?.date.iso8601Milliseconds)
            return .bytes(photo.jpeg, contentType: "image/jpeg",
                          headers: ["X-Plumb-Motion": try JSON.headerValue(seen),
                                    "X-Plumb-Photo": try JSON.headerValue(AnyEncodable(photo.facts))])
        }
    }

    static func requireEnabled(_ motion: MotionService) throws(APIError) {
        guard motion.config.enabled else {
            throw .busy("motion detection is off: set [motion] enabled = true in the config and restart plumb serve")
        }
    }

    /// `X-Plumb-Motion`: `state` (`motion` now, or `idle`: the boxes are the last motion's),
    /// the boxes drawn, the changed part of the picture and when that frame was analysed
    /// (null before any motion).
    struct Snapshot: Encodable {
        var state: String
        var boxes: [NormalizedRect]
        var fraction: Double?
        var time: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(state, forKey: .state)
            try c.encode(boxes, forKey: .boxes)
            try c.encode(fraction, forKey: .fraction)
            try c.encode(time, forKey: .time)
        }

        enum CodingKeys: String, CodingKey { case state, boxes, fraction, time }
    }

    /// What `GET /motion` and `PATCH /motion` answer.
    struct Settings: Encodable {
        var enabled: Bool
        /// `idle` or `motion`; null when off.
        var state: String?
        var rate: Int
        var sensitivity: Double
        var minArea: Double
        var minFrames: Int
        var quietSeconds: Double
        var event: Bool
        var mask: [[Double]]
        /// The `[motion]` line that keeps `mask` across restarts.
        var configLine: String
        var lastMotion: Snapshot?

        enum CodingKeys: String, CodingKey {
            case enabled, state, rate, sensitivity, minArea = "min_area", minFrames = "min_frames"
            case quietSeconds = "quiet_seconds", event, mask, configLine = "config_line", lastMotion = "last_motion"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(enabled, forKey: .enabled)
            try c.encode(state, forKey: .state)
            try c.encode(rate, forKey: .rate)
            try c.encode(sensitivity, forKey: .sensitivity)
            try c.encode(minArea, forKey: .minArea)
            try c.encode(minFrames, forKey: .minFrames)
            try c.encode(quietSeconds, forKey: .quietSeconds)
            try c.encode(event, forKey: .event)
            try c.encode(mask, forKey: .mask)
            try c.encode(configLine, forKey: .configLine)
            try c.encode(lastMotion, forKey: .lastMotion)
        }
    }

    static func settings(_ motion: MotionService) -> Settings {
        let config = motion.config, mask = motion.mask
        let (inMotion, last) = motion.sighting
        return Settings(enabled: config.enabled, state: config.enabled ? (inMotion ? "motion" : "idle") : nil,
                        rate: config.rate, sensitivity: config.sensitivity, minArea: config.minArea,
                        minFrames: config.minFrames, quietSeconds: config.quietSeconds, event: config.event,
                        mask: mask.map { [$0.x, $0.y, $0.width, $0.height] },
                        configLine: "mask = " + renderMasks(mask),
                        lastMotion: last.map {
                            Snapshot(state: inMotion ? "motion" : "idle", boxes: $0.boxes,
                                     fraction: ($0.fraction * 10_000).rounded() / 10_000, time: $0.date.iso8601Milliseconds)
                        })
    }

    /// `{"mask": [[x, y, width, height], ...]}`, each rectangle checked as `[motion] mask`'s are.
    static func mask(_ body: Data) throws(APIError) -> [NormalizedRect] {
        let example = #"send {"mask": [[x, y, width, height], ...]}: rectangles of the upright picture, normalised 0 to 1 (e.g. [[0, 0, 1, 0.1]]), [] for none"#
        guard case .object(let object)? = JSONValue.parse(body), case .array(let given)? = object["mask"] else {
            throw .badRequest(example)
        }
        if let other = object.keys.sorted().first(where: { $0 != "mask" }) {
            throw .badRequest("\(other) cannot be changed while running: only mask can (the other [motion] settings are in the config file)")
        }
        guard given.count <= maxRectangles else {
            throw .badRequest("\(given.count) mask rectangles: at most \(maxRectangles)")
        }
        var rects: [NormalizedRect] = []
        for (index, item) in given.enumerated() {
            guard case .array(let elements) = item, elements.count == 4 else {
                throw .badRequest("mask rectangle \(index + 1) (\(item.line)) must be [x, y, width, height]: 4 numbers from 0 to 1")
            }
            let numbers = elements.compactMap { element -> Double? in
                if case .number(let n) = element, n.isFinite { return n } else { return nil }
            }
            guard numbers.count == 4 else {
                throw .badRequest("mask rectangle \(index + 1) (\(item.line)) must be [x, y, width, height]: 4 numbers from 0 to 1")
            }
            do {
                rects.append(try NormalizedRect.parse(numbers.map { String($0) }.joined(separator: ",")))
            } catch {
                throw .badRequest("mask rectangle \(index + 1) [\(numbers.map { String($0) }.joined(separator: ", "))] must lie "
                                  + "inside the picture: x, y at least 0, width, height above 0, x + width and y + height at most 1")
            }
        }
        return rects
    }
}
