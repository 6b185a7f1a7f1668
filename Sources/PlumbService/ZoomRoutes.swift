import FoundationEssentials
import Glibc
import Soup
import Plumb

/// `POST /zoom?factor=F[&x=X&y=Y][&rate=R]`: the digital zoom of every output, at once or
/// ramped at R doublings per second; answers the zoom as `GET /status` shows it.
struct ZoomRoutes: Sendable {
    let camera: CameraSlot

    func add(to router: inout Router) {
        router.post("/zoom") { [camera] request in
            let session = try camera.session()
            func number(_ key: String) throws(APIError) -> Double? {
                guard let text = request.query[key] else { return nil }
                guard let value = Double(text), value.isFinite else {
                    throw .badRequest("\(key)=\(text) is not a number")
                }
                return value
            }
            guard let factor = try number("factor") else {
                throw APIError.badRequest("give factor=F (1 to [camera] max-zoom), optionally x=&y= (the centre, 0 to 1) and rate=R (doublings per second)")
            }
            let current = await session.zoom
            do {
                try await session.setZoom(factor, centerX: try number("x") ?? current.centerX,
                                          centerY: try number("y") ?? current.centerY, rate: try number("rate"))
            } catch let error as CaptureError {
                if case .invalidArgument(let why) = error { throw APIError.badRequest(why + " ([camera] max-zoom)") }
                throw APIError.cameraUnavailable("\(error)")
            }
            return .json(await session.zoom)
        }
    }
}
