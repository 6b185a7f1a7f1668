import FoundationEssentials
import Glibc
import Plumb
import PlumbRTSP

/// What the daemon tells systemd, and how it follows the wall clock.
extension ServeDaemon {
    /// Logs each wall-clock jump (and what it was recording then: that file's length
    /// follows the monotonic clock, its name and dates the wall clock).
    static func watchClock(recorder: ContinuousRecorder, log: @escaping @Sendable (String) -> Void) -> WallClockWatch {
        WallClockWatch(onJump: { jump in
            Task {
                let file = await recorder.currentFile
                log("wall clock jumped \(jump.signed) (\(jump.from) -> \(jump.to))"
                    + (file.map { " mid-recording of \($0): segment lengths follow the monotonic clock, names the wall clock" } ?? ""))
            }
        }, onSynchronization: { synced in
            log("wall clock: " + Self.sentence(synchronized: synced))
        })
    }

    static func sentence(synchronized: Bool?) -> String {
        switch synchronized {
        case true?: "synchronised (the kernel says so)"
        case false?: "not synchronised (adjtimex: STA_UNSYNC): file names, EXIF and MP4 dates may be off "
            + "until NTP sets it; facts and /status say clock_synchronized false"
        case nil: "the kernel does not say whether it is synchronised"
        }
    }

    func startClockWatch() {
        let status = clock.status
        let log = self.log
        do {
            try clock.start(onFailure: { log("wall clock: its sets are no longer seen: \($0)") })
        } catch {
            log("wall clock: its sets (jumps) are not watched: \(error)")
        }
        log("wall clock: " + Self.sentence(synchronized: status.synchronized))
    }

    /// What systemd is told: the status line of the camera, the recording and the RTSP
    /// clients, and whether the running session's frames flow (the watchdog).
    static func supervision(notifier: SystemdNotifier, camera: CameraSlot, recorder: ContinuousRecorder,
                            preview: RTSPPreview) -> SystemdSupervision {
        SystemdSupervision(notifier: notifier, status: {
            await Self.statusLine(camera: camera, recording: await recorder.currentFile, clients: preview.clientCount)
        }, frames: {
            guard case .running(let session) = camera.current else { return nil }
            return (ObjectIdentifier(session), await session.frameCount)
        })
    }

    /// `READY=1` (the servers are up, the camera tried), then the status and watchdog loops.
    func notifyReady() async {
        guard let systemd else { return }
        await systemd.ready()
        log("systemd: told ready on \(systemd.notifier.socketName)"
            + (systemd.notifier.watchdogTimeout.map { ", watchdog pinged every \($0 / 2) while frames flow" } ?? ""))
    }

    /// "camera running; recording 2026-12-01_22-55-01.mp4; 1 RTSP client".
    static func statusLine(camera: CameraSlot, recording: String?, clients: Int) async -> String {
        var camera = "camera \(camera.stateName)" + (camera.problem.map { ": \($0)" } ?? "")
        if camera.count > 200 { camera = String(camera.prefix(200)) + "..." }
        return camera + "; " + (recording.map { "recording \($0)" } ?? "not recording")
            + "; \(clients) RTSP client\(clients == 1 ? "" : "s")"
    }
}
