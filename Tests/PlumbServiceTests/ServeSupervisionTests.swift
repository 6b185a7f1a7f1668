import Foundation
import GStreamer
@testable import PlumbService
import PlumbTestSupport
import Synchronization
import XCTest
@testable import Plumb

/// Camera loss with everything attached, in-process so the test can reach the camera's
/// source: continuous recording in segments, an RTSP consumer (ffmpeg) and systemd's
/// watchdog on the test's own notify socket. First the source fails (an error on its bus,
/// as an unplugged camera posts), then it stalls (its frames held at its pad: no error, no
/// frame). Each time the camera is rebuilt, the consumer — the same ffmpeg on the same
/// connection — gets frames again, the interrupted file is closed playable and a new one
/// starts; while frames do not flow, the watchdog pings stop.
final class ServeSupervisionTests: XCTestCase {
    /// ffmpeg reading the preview, its decoded-frame count read from `-progress` as it goes.
    final class Consumer: @unchecked Sendable {  // driven by one test thread
        let process = Process()
        let progress: URL
        init(_ url: String, dir: URL, _ test: XCTestCase) throws {
            progress = dir.appendingPathComponent("progress-\(UUID().uuidString).txt")
            _ = FileManager.default.createFile(atPath: progress.path, contents: nil)
            process.executableURL = PlumbProcess.tool("ffmpeg")
            process.arguments = ["-nostdin", "-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                 "-stats_period", "0.2", "-progress", progress.path, "-f", "null", "-"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let process = self.process
            test.addTeardownBlock {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
            }
        }
        /// Frames decoded so far (the last `frame=` of the progress file).
        var frames: Int {
            let text = (try? String(contentsOf: progress, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").last { $0.hasPrefix("frame=") }.flatMap { Int($0.dropFirst(6)) } ?? 0
        }
    }

    func testCameraLossIsSurvivedByConsumerRecordingAndWatchdog() async throws {
        let dir = try temporaryDirectory(self)
        let lines = ServeDaemonTests.Lines()
        var config = ServeDaemonTests.config(folder: dir)
        config.recording.segmentSeconds = 600  // only a loss ends a file here
        let notify = try NotifySocket(self)
        let notifier = try SystemdNotifier(socket: notify.name, watchdogTimeout: .seconds(1))
        let daemon = try ServeDaemon(config: config, choices: try ServeChoices.resolve(config), notifier: notifier,
                                     log: lines.add)
        addTeardownBlock { await daemon.shutdown() }
        let addresses = try await daemon.start()
        guard case .running(var session) = daemon.camera.current else { return XCTFail("the camera did not open: \(lines.all)") }
        let consumer = try Consumer(addresses.rtsp, dir: dir, self)
        await eventually("the consumer to decode frames", timeout: .seconds(30)) { consumer.frames > 30 }
        await eventually("watchdog pings") { notify.with("WATCHDOG=1").count >= 3 }
        var files = [try await XCTUnwrapAsync(await daemon.recorder.currentFile)]

        for loss in ["error", "stall"] {
            var block: (Pad, UInt)?
            let src = try await XCTUnwrapAsync(await session.element(named: "src"))
            let lost = ContinuousClock.now
            if loss == "error" {
                src.postResourceError("Could not read from resource (test: unplugged)")
            } else {
                let pad = try XCTUnwrap(src.staticPad("src"))
                block = (pad, pad.addProbe([.block, .buffer]) { _ in .ok })
            }
            await eventually("the camera to be seen gone (\(loss))") { daemon.camera.stateName == "unavailable" }
            let gone = ContinuousClock.now
            let pingsWhileGone = notify.with("WATCHDOG=1").count
            let framesWhileGone = consumer.frames
            // No frame flows from the loss on: no ping from its next tick (0.5 s) until the
            // camera is back — a stall is only seen after 2 s without a frame, and the
            // rebuild waits a second's backoff after the loss (a loaded machine only
            // lengthens both).
            try await Task.sleep(for: .milliseconds(900))  // the thing tested: no ping over this time
            let silent = (lost + .milliseconds(600), gone + .milliseconds(900))
            let during = notify.with("WATCHDOG=1").filter { $0.at > silent.0 && $0.at < silent.1 }
            XCTAssertEqual(during.count, 0, "pings without frames (\(loss)): \(during.map { lost.duration(to: $0.at) })")
            // 2 s from the last frame, which came at most a frame (33 ms) before the block.
            if loss == "stall" { XCTAssertGreaterThan(gone - lost, .milliseconds(1900), "a stall is 2 s without a frame") }
            await eventually("the camera to be rebuilt (\(loss))", timeout: .seconds(30)) {
                daemon.camera.stateName == "running"
            }
            if let (pad, id) = block { pad.removeProbe(id) }
            guard case .running(let reopened) = daemon.camera.current else { return XCTFail("no session") }
            XCTAssertFalse(reopened === session, "a new session")
            session = reopened
            // The same consumer, on the same connection, gets frames again; the pings resume.
            await eventually("frames to the consumer again (\(loss))", timeout: .seconds(30)) {
                consumer.frames > framesWhileGone + 60
            }
            XCTAssertTrue(consumer.process.isRunning, "the consumer was dropped (\(loss))")
            await eventually("pings again (\(loss))") { notify.with("WATCHDOG=1").count > pingsWhileGone + 1 }
            // A new file.
            var next: String?
            await eventually("a new file after the \(loss): \(lines.all)") {
                if let now = await daemon.recorder.currentFile, !files.contains(now) { next = now }
                return next != nil
            }
            files.append(try XCTUnwrap(next, "no new file after the \(loss): \(lines.all)"))
        }
        XCTAssertTrue(lines.contains("test: unplugged"), "\(lines.all)")
        XCTAssertTrue(lines.contains("it stopped delivering frames for 2.0 seconds"), "\(lines.all)")
        await daemon.shutdown()

        // Every file, the two the losses closed included, is a whole MP4: ffprobe reads
        // frames to the end and ffmpeg decodes it without an error.
        for name in files {
            let path = dir.appendingPathComponent(name).path
            XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(path), 15, name)
            let decode = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-i", path, "-f", "null", "-"])
            XCTAssertEqual(decode.code, 0, decode.stderr)
            XCTAssertEqual(decode.stderr, "", name)
        }
        XCTAssertEqual(notify.messages.last?.text, "STOPPING=1")
        // systemctl status said it: the camera gone (with why), then back.
        let statuses = notify.statuses
        XCTAssertTrue(statuses.contains { $0.hasPrefix("camera unavailable: ") && $0.contains("test: unplugged") }, "\(statuses)")
        XCTAssertTrue(statuses.contains { $0.hasPrefix("camera unavailable: ") && $0.contains("stopped delivering frames") },
                      "\(statuses)")
        XCTAssertGreaterThanOrEqual(statuses.filter { $0.hasPrefix("camera running; recording ") }.count, 3, "\(statuses)")
    }
}
