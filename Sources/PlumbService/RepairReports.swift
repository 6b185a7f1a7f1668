import Synchronization
import Plumb
import PlumbMedia

/// What the start-up repair did to the recordings a crash left (the files it changed or
/// could not): written once by the daemon's start, read by every `GET /status`.
final class RepairReports: Sendable {
    private let reports = Mutex<[RepairReport]>([])

    var current: [RepairReport] { reports.withLock { $0 } }

    func keep(_ new: [RepairReport]) { reports.withLock { $0 = new } }
}
