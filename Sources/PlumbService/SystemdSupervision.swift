import Foundation
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
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let lastStatus = Mutex<String?>(nil)
    private let status = ClosureSlot<@Sendable () async -> String>()
    private let pings = Atomic<Int>(0)

    public init(notifier: SystemdNotifier, statusInterval: Duration = .seconds(1)) {
        self.notifier = notifier
        self.statusInterval = statusInterval
    }

    /// How many `WATCHDOG=1` went out.
    public var pingCount: Int { pings.load(ordering: .relaxed) }

    /// `READY=1` with the status, then the status and watchdog loops.
    public func ready(status: @escaping @Sendable () async -> String, frames: @escaping FrameProgress) async {
        let first = await status()
        lastStatus.withLock { $0 = first }
        self.status.set(status)
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
                        self.pings.add(1, ordering: .relaxed)
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

    /// Sends the status if it changed; nothing once stopping.
    private func update() async {
        guard let status = status.closure else { return }
        let now = await status()
        let changed = lastStatus.withLock { last in
            defer { last = now }
            return last != now
        }
        if changed, self.status.closure != nil { notifier.send("STATUS=\(now)") }
    }

    /// `STOPPING=1`; the loops end.
    public func stopping() {
        status.clear()
        for task in tasks.withLock({ t in defer { t = [] }; return t }) { task.cancel() }
        notifier.send("STOPPING=1")
    }
}
