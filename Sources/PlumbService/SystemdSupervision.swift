import FoundationEssentials
import Glibc
import Synchronization

/// What `plumb serve` tells systemd (a `Type=notify` unit with `WatchdogSec=`): `READY=1`
/// once it serves, a `STATUS=` line whenever what it says changes (camera, recording,
/// clients), `WATCHDOG=1` every half `WATCHDOG_USEC` but only when the camera's frame count
/// has moved since the last ping — a stalled pipeline stops the pings, so systemd restarts
/// the daemon when its own recovery fails — and `STOPPING=1` when it stops.
public final class SystemdSupervision: Sendable {
    /// Where a frame count comes from: the running session and its frames so far; nil without a camera.
    public typealias FrameProgress = @Sendable () async -> (session: ObjectIdentifier, frames: Int)?

    public let notifier: SystemdNotifier
    /// How often the status is looked at.
    public let statusInterval: Duration
    /// The `STATUS=` line as it stands.
    private let status: @Sendable () async -> String
    private let frames: FrameProgress
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// The status last sent; nil before `ready()` and once stopping (then none is sent).
    private let lastStatus = Mutex<String?>(nil)

    public init(notifier: SystemdNotifier, statusInterval: Duration = .seconds(1),
                status: @escaping @Sendable () async -> String, frames: @escaping FrameProgress) {
        self.notifier = notifier
        self.statusInterval = statusInterval
        self.status = status
        self.frames = frames
    }

    /// `READY=1` with the status, then the status and watchdog loops.
    public func ready() async {
        let first = await status()
        lastStatus.withLock { $0 = first }
        let frames = self.frames
        notifier.send("READY=1\nSTATUS=\(first)")
        var started = [Task<Void, Never>]()
        let interval = statusInterval
        started.append(Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await self?.update()
            }
        })
        if let timeout = notifier.watchdogTimeout {
            let every = timeout / 2
            started.append(Task { [weak self] in
                var last = await frames()
                while !Task.isCancelled {
                    do { try await Task.sleep(for: every) } catch { return }
                    guard let self else { return }
                    let now = await frames()
                    // Frames of a new session, or more of the same one: the pipeline flows.
                    if let now, now.session != last?.session || now.frames > last?.frames ?? 0 {
                        self.notifier.send("WATCHDOG=1")
                    }
                    last = now
                }
            })
        }
        tasks.withLock { $0 = started }
    }

    /// Looks at the status now (the camera was lost or opened), not at the next tick.
    public func refresh() {
        Task { await update() }
    }

    /// Sends the status if it changed; nothing before `ready()` or once stopping.
    private func update() async {
        guard lastStatus.withLock({ $0 }) != nil else { return }
        let now = await status()
        let changed = lastStatus.withLock { last in
            guard let before = last else { return false }
            last = now
            return before != now
        }
        if changed { notifier.send("STATUS=\(now)") }
    }

    /// `STOPPING=1`; the loops end.
    public func stopping() {
        lastStatus.withLock { $0 = nil }
        for task in tasks.withLock({ t in defer { t = [] }; return t }) { task.cancel() }
        notifier.send("STOPPING=1")
    }
}
