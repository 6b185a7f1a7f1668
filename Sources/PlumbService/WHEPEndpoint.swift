import FoundationEssentials
import Glibc
import PlumbBase
import Soup
import Plumb

/// The WHEP routes over a `WHEPPreview`:
///
/// - `POST /whep` (`Content-Type: application/sdp`, the viewer's offer) — `201 Created`,
///   the SDP answer with every ICE candidate in it, `Location: /whep/ID`
/// - `DELETE /whep/ID` — ends that viewer's session (204)
///
/// Trickle ICE (`PATCH`) is not offered: the answer is complete, so the path answers 405.
/// A body that is not SDP, an offer without video, or one without H.264 gets 400 (415 for
/// another content type) with `{"error": ...}` saying what to change.
public struct WHEPEndpoint: Sendable {
    public let preview: WHEPPreview

    public init(preview: WHEPPreview) { self.preview = preview }

    /// For `/status`'s `webrtc`.
    public struct Status: Encodable, Sendable {
        /// Sessions open (answered, not ended).
        var viewers: Int
        /// Of which connected now.
        var connected: Int
        /// Let go since the start for failing, never connecting or going silent.
        var dropped: Int
        var maxViewers: Int
        var stun: String?

        enum CodingKeys: String, CodingKey {
            case viewers, connected, dropped, maxViewers = "max_viewers", stun
        }
    }

    public var status: Status {
        Status(viewers: preview.viewerCount, connected: preview.connectedCount, dropped: preview.droppedCount,
               maxViewers: preview.configuration.maxViewers, stun: preview.configuration.stun)
    }

    public func addRoutes(to router: inout Router) {
        router.post("/whep") { [preview] request in
            let offer = try Self.offer(request)
            let session: (id: String, answer: String)
            do {
                session = try await preview.open(offer)
            } catch let error as WHEPPreview.OpenError {
                switch error {
                case .full: throw APIError.cameraUnavailable(error.description)
                case .negotiation: throw APIError.badRequest(error.description)
                }
            }
            return .bytes(Data(session.answer.utf8), contentType: "application/sdp", status: 201,
                          headers: ["Location": "/whep/\(session.id)"])
        }
        router.add("DELETE", "/whep/{id}") { [preview] request in
            let id = request.parameters["id"] ?? ""
            guard preview.close(id) else {
                throw APIError.notFound("no WHEP session \(id): it ended already (or never was); POST /whep for a new one")
            }
            return HTTPResponse(status: 204)
        }
    }

    /// The request's offer, or the 4xx that says what is wrong with it.
    static func offer(_ request: HTTPRequest) throws -> WHEPOffer {
        let type = request.headers["Content-Type"]?.split(separator: ";").first
            .map { $0.trimmed.lowercased() }
        guard type == "application/sdp" else {
            throw UnsupportedMediaType(given: type)
        }
        guard let text = String(data: request.body, encoding: .utf8) else {
            throw APIError.badRequest(WHEPOffer.Problem.notSDP.description)
        }
        do {
            return try WHEPOffer(text)
        } catch {
            throw APIError.badRequest(error.description)
        }
    }

    /// 415: the offer must come as application/sdp.
    struct UnsupportedMediaType: Error, HTTPResponseConvertible {
        let given: String?
        var response: HTTPResponse {
            .error(415, "POST /whep takes the SDP offer as Content-Type: application/sdp, not \(given ?? "no content type")")
        }
    }
}
