/// Requests from another site's page: a browser names the page's origin in `Origin` on
/// every cross-origin request (and on same-origin ones but GET and HEAD), so one whose
/// origin is not this server's (scheme, the `Host` it asked for) is refused before any
/// handler runs — a page elsewhere cannot start a recording through the visitor's
/// browser, whether or not a token is set. Clients that are not browsers send no `Origin`.
enum CrossOrigin {
    static func refusal(origin: String?, host: String?, allowed: Set<String>) -> HTTPResponse? {
        guard let origin else { return nil }
        if allowed.contains(origin) { return nil }
        if let host, origin == "http://\(host)" || origin == "https://\(host)" { return nil }
        return .error(403, "cross-origin request from \(origin) refused: open the page this server serves at / instead")
    }
}
