import FoundationEssentials
import Glibc
import Soup

/// The control page at `/`: plain HTML, CSS and JavaScript from a folder (`web/` in the
/// source tree, `PREFIX/share/plumb/web` once installed), served without the token — it
/// holds no data; everything it shows comes from the API, which asks for it.
///
/// - `GET /` — index.html
/// - `GET /page/NAME` — the page's other files (plumb.css, plumb.js)
public struct ControlPage: Sendable {
    /// The folder holding index.html; nil when none was found (then `/` says where it looked).
    public let folder: String?
    let searched: [String]

    /// `PLUMB_WEB` (a folder) when set; else `share/plumb/web` beside the installed binary's
    /// `bin/`; else the `web/` of the source tree the binary was built in.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                executable: String = CommandLine.arguments.first ?? "") {
        var candidates: [String] = []
        if let configured = environment["PLUMB_WEB"] { candidates.append(configured) }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let bin = binary.deletingLastPathComponent()
        candidates.append(bin.deletingLastPathComponent().appendingPathComponent("share/plumb/web").path)
        // .build/<triple>/debug/plumb: the package is some levels up.
        var up = bin
        for _ in 0..<4 {
            up = up.deletingLastPathComponent()
            candidates.append(up.appendingPathComponent("web").path)
        }
        searched = candidates
        folder = candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }

    static let types = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "png": "image/png"]

    public func addRoutes(to router: inout Router) {
        router.get("/", requiresAuthentication: false) { _ in try serve("index.html") }
        router.get("/page/{name}", requiresAuthentication: false) { request in try serve(request.parameters["name"] ?? "") }
    }

    func serve(_ name: String) throws -> HTTPResponse {
        guard let folder else {
            throw APIError.notFound("the control page is not installed: no index.html in "
                                    + searched.joined(separator: ", ") + " (make install, or set PLUMB_WEB)")
        }
        let type = name.split(separator: ".").last.flatMap { Self.types[String($0)] }
        guard let type, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }),
              !name.hasPrefix("."), FileManager.default.fileExists(atPath: folder + "/" + name) else {
            throw APIError.notFound("no page file \(name)")
        }
        // The page must never be framed by another site nor load scripts from elsewhere.
        return .file(folder + "/" + name, contentType: type, headers: [
            "Cache-Control": "no-cache",
            "X-Frame-Options": "DENY",
            "Content-Security-Policy": "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:; frame-ancestors 'none'",
        ])
    }
}
