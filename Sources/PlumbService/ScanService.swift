import FoundationEssentials
import Glibc
import Soup
import Synchronization
import Plumb

/// `[scan]` in the daemon: a `ScanOutput` on every session the daemon opens, each
/// detection a `barcode` event and kept for `GET /scans` (the last `capacity`), with a
/// still saved beside it when `[scan] photo` says so.
public final class ScanService: Sendable {
    public static let capacity = 100

    let config: ServeConfig.Scan
    private let recent = Mutex<[ScanRecord]>([])
    private let folder: RecordingsFolder
    private let backend: SessionBackend
    private let retention: Retention
    private let publish: @Sendable (ServiceEvent) -> Void
    private let log: @Sendable (String) -> Void

    init(config: ServeConfig.Scan, folder: RecordingsFolder, backend: SessionBackend, retention: Retention,
         publish: @escaping @Sendable (ServiceEvent) -> Void, log: @escaping @Sendable (String) -> Void) {
        self.config = config
        self.folder = folder
        self.backend = backend
        self.retention = retention
        self.publish = publish
        self.log = log
    }

    /// Attaches a scanner to a session the daemon just opened (nothing when `[scan]` is off).
    func attach(to session: CaptureSession) async throws {
        guard config.enabled else { return }
        let output = try ScanOutput(options: config.options) { [weak self] detection in
            // The branch's streaming thread: hand off.
            guard let self else { return }
            Task { await self.report(detection) }
        }
        try await session.attach(output)
    }

    /// The last `limit` detections, oldest first.
    public func last(_ limit: Int = capacity) -> [ScanRecord] {
        recent.withLock { Array($0.suffix(limit)) }
    }

    private func report(_ detection: ScanDetection) async {
        var photo: String?
        if config.photo {
            do {
                let still = try await backend.takePhoto()
                let path = folder.newFile(extension: "jpg", prefix: "scan-")
                let registration = retention.inUse.register(path: path)
                defer {
                    registration.done()
                    retention.run(because: "a scan still saved")
                }
                try AtomicFile.write(still.jpeg, to: path)
                photo = URL(fileURLWithPath: path).lastPathComponent
            } catch {
                publish(.error(message: "could not save the still of a \(detection.symbology.rawValue) detection: \(error)"))
            }
        }
        let record = ScanRecord(detection, photo: photo)
        recent.withLock { r in
            r.append(record)
            if r.count > Self.capacity { r.removeFirst(r.count - Self.capacity) }
        }
        publish(.barcode(record))
        log("scan: \(record.symbology) \(record.text.map { "\"\($0)\"" } ?? "(\(detection.data.count) bytes)")"
            + (photo.map { ", still \($0)" } ?? ""))
    }

    /// `GET /scans[?limit=N]`: `{"enabled": B, "scans": [...]}`, the last N (default and at most 100), oldest first.
    public func addRoutes(to router: inout Router) {
        router.get("/scans") { [self] request in
            var limit = Self.capacity
            if let text = request.query["limit"] {
                guard let n = Int(text), (1...Self.capacity).contains(n) else {
                    throw APIError.badRequest("limit=\(text) is out of range: use a whole number from 1 to \(Self.capacity)")
                }
                limit = n
            }
            return .json(ScansReply(enabled: config.enabled, scans: last(limit)))
        }
    }
}

private struct ScansReply: Encodable {
    var enabled: Bool
    var scans: [ScanRecord]
}
