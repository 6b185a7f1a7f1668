import Soup

/// `POST /session` and `DELETE /session`: the control page trades the bearer token, once,
/// for an `HttpOnly`, `SameSite=Strict` session cookie the whole API accepts in its stead
/// (`SessionCookies`): the page's `EventSource`, `<img>` and downloads cannot send the header.
///
/// - `POST /session` with `Authorization: Bearer TOKEN` — 200 `{"session": true}` and the cookie;
///   without `[http] token` there is nothing to trade: `{"session": false}`, no cookie
/// - `DELETE /session` — ends the cookie's session (a new `POST /session` is needed)
public struct PageSession: Sendable {
    public let sessions: SessionCookies?

    public init(sessions: SessionCookies?) { self.sessions = sessions }

    public func addRoutes(to router: inout Router) {
        router.post("/session") { [sessions] _ in
            guard let sessions else { return .json(["session": false]) }
            return .json(["session": true], headers: ["Set-Cookie": sessions.issue(), "Cache-Control": "no-store"])
        }
        router.add("DELETE", "/session", requiresAuthentication: false) { [sessions] request in
            guard let sessions else { return HTTPResponse(status: 204) }
            return HTTPResponse(status: 204, headers: ["Set-Cookie": sessions.end(cookieHeader: request.headers["Cookie"])])
        }
    }
}
