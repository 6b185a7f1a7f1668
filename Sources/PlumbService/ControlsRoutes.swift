import FoundationEssentials
import Glibc
import Soup
import Plumb

/// The camera's V4L2 controls in the API (`CameraControlKeeper` keeps what is set):
///
/// - `GET /controls`: every control with its value, as `plumb controls --json` lists them
///   (none, with a `reason`, for a camera without controls such as the test camera)
/// - `PATCH /controls` with `{"exposure": "manual", "exposure-time": 0.01}`: one checked
///   batch, all or nothing; answers the controls set with the values read back
/// - `POST /controls/lock`, `DELETE /controls/lock`: auto exposure, gain, focus and white
///   balance frozen at their current values, and released
///
/// 400: an unknown name, a value out of range or off-step, a missing menu entry, a control
/// inactive in the current mode, a camera without controls (the message says what would
/// do); 409: the driver is busy (EBUSY) or no lock is held; 502: the driver failed (EIO ...).
struct ControlsRoutes: Sendable {
    let camera: CameraSlot
    let keeper: CameraControlKeeper

    func add(to router: inout Router) {
        router.get("/controls") { [camera, keeper] _ in
            let session = try camera.session()
            do { return .json(try keeper.list(session)) } catch let error as CameraControlError { throw Self.apiError(error) }
        }
        router.add("PATCH", "/controls") { [camera, keeper] request in
            let assignments = try Self.assignments(request.body)
            let session = try camera.session()
            do { return .json(Answer(controls: try keeper.set(assignments, on: session))) } catch let error as CameraControlError { throw Self.apiError(error) }
        }
        router.post("/controls/lock") { [camera, keeper] _ in
            let session = try camera.session()
            do { return .json(Answer(controls: try keeper.lock(session), locked: true)) } catch let error as CameraControlError { throw Self.apiError(error) }
        }
        router.add("DELETE", "/controls/lock") { [camera, keeper] _ in
            let session = try camera.session()
            let released: [CameraControlEntry]?
            do { released = try keeper.unlock(session) } catch let error as CameraControlError { throw Self.apiError(error) }
            guard let released else { throw APIError.busy("no lock is held; POST /controls/lock first") }
            return .json(Answer(controls: released, locked: false))
        }
    }

    /// What PATCH and the lock answer: the controls they changed, read back.
    struct Answer: Encodable {
        var controls: [CameraControlEntry]
        var locked: Bool?
    }

    /// `{"name": value, ...}`: numbers, strings and booleans (true is 1). The batch puts mode
    /// controls first, so the object's order does not matter.
    static func assignments(_ body: Data) throws(APIError) -> [(name: String, value: String)] {
        let example = #"send a JSON object of control names and values, e.g. {"exposure": "manual", "exposure-time": 0.01}"#
        guard let object = try? JSONDecoder().decode([String: Given].self, from: body) else { throw .badRequest(example) }
        guard !object.isEmpty else { throw .badRequest("no control given; " + example) }
        return object.keys.sorted().map { ($0, object[$0]!.text) }
    }

    /// One value of the object, as the text `--control` would take.
    struct Given: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let flag = try? c.decode(Bool.self) {
                text = flag ? "1" : "0"
            } else if let whole = try? c.decode(Int64.self) {
                text = String(whole)
            } else if let number = try? c.decode(Double.self) {
                text = String(number)
            } else {
                text = try c.decode(String.self)
            }
        }
    }

    /// A refusal as the API says it: the client's mistakes 400, the driver's word otherwise.
    static func apiError(_ error: CameraControlError) -> APIError {
        switch error {
        case .driver(let driver):
            switch driver.errno {
            case EBUSY: return .busy(driver.description)
            case ENODEV, ENOENT: return .cameraUnavailable(driver.description)
            case EINVAL, ERANGE, EACCES: return .badRequest(driver.description)
            default: return .deviceFailed(driver.description)
            }
        default:
            return .badRequest(error.description)
        }
    }
}
