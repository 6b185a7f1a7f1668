import Foundation
import PlumbTestSupport
import XCTest

/// `plumb serve` recording from vivid while the camera fails under it
/// (`Tests/Kernel/scenarios/20-vivid-serve-lost.sh`): vivid's fatal streaming error, then
/// the device disconnected, removed (`rmmod`) and loaded again under another node.
final class KernelVividServeTests: XCTestCase {
    private func file(_ name: String) throws -> String {
        let out = try KernelVM.shared.output(of: "vivid-serve-lost")
        return (try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    private func status(_ name: String) throws -> [String: Any] {
        let text = try file(name)
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    /// Each loss is said as a loss, with the driver's reason, not as a camera that "could not
    /// be opened"; /status says unavailable and why.
    func testTheDaemonSaysTheCameraWasLostAndWhy() throws {
        let log = try file("serve.log")
        let losses = log.split(separator: "\n").filter { $0.contains("camera lost: camera /dev/video0: lost while streaming") }
        XCTAssertEqual(losses.count, 2, "the fatal error and the disconnect, each said once:\n\(log)")
        XCTAssertFalse(log.contains("could not be opened (Could not read from resource.)"), log)
        let lost = try status("status-lost.json")
        XCTAssertEqual(lost["state"] as? String, "unavailable")
        // The loss itself, or already the first reopening attempt's reason (the node is gone).
        XCTAssertTrue((lost["problem"] as? String ?? "").hasPrefix("camera /dev/video0: "), "\(lost["problem"] ?? "none")")
        XCTAssertEqual(try status("status-after-fatal.json")["state"] as? String, "running", "reopened after the fatal error")
    }

    /// vivid dropping 30 % of its buffers for 3 s while serving: `/status` counts the frames
    /// missing (`frames_lost`), and the recording of that stretch keeps real time (its times
    /// step over them, as ffprobe reads them).
    func testDroppedBuffersAreCountedInStatusAndTheFileKeepsRealTime() throws {
        // vivid skips numbers of its own under emulation (its thread runs late): counted too.
        let before = try status("status-start.json")["frames_lost"] as? Int ?? -1
        XCTAssertGreaterThanOrEqual(before, 0, "frames_lost while running")
        let dropped = try status("status-dropped.json")
        XCTAssertEqual(dropped["state"] as? String, "running")
        let lost = dropped["frames_lost"] as? Int ?? -1
        XCTAssertGreaterThan(lost, before + 3, "frames_lost after 3 s of 30 % dropped at 15 fps")
        let out = try KernelVM.shared.output(of: "vivid-serve-lost")
        let folder = out.appendingPathComponent("recordings")
        let first = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") }.sorted().first)
        let times = try KernelVividRecordTests.packetTimes(folder.appendingPathComponent(first).path)
        let gaps = KernelVividRecordTests.gaps(times, fps: 15)
        // That file runs on to the fatal error after /status was read: more gaps than counted then.
        XCTAssertGreaterThan(gaps, 0, "the first file's times step over the dropped frames")
        print("serve: frames_lost \(before) at start, \(lost) after the drops; \(gaps) frames missing by the first file's times")
    }

    /// One RTSP client (gst-launch-1.0 rtspsrc over TCP, which never reconnects by itself)
    /// connected before the losses stays connected while the camera is away and gets frames
    /// again once vivid is back, on the same connection.
    func testAnRTSPClientIsKeptWhileTheCameraIsAwayAndGetsFramesAgain() throws {
        func count(_ name: String) throws -> (buffers: Int, alive: Bool) {
            let words = try file("rtsp-\(name).txt").split { $0.isWhitespace }
            return (Int(words.first ?? "") ?? -1, words.last == "alive")
        }
        let before = try count("before"), lost = try count("lost"), back = try count("back"), end = try count("end")
        let log = try file("rtsp-client.txt")
        XCTAssertGreaterThan(before.buffers, 0, "frames before the losses:\n\(log.suffix(2000))")
        XCTAssertTrue(before.alive && lost.alive && back.alive && end.alive, "the client ended:\n\(log.suffix(2000))")
        XCTAssertGreaterThan(end.buffers, back.buffers, "frames again after the camera came back")
        XCTAssertEqual(try status("status-lost.json")["rtsp_clients"] as? Int, 1, "connected while the camera is away")
        XCTAssertEqual(try status("status-back.json")["rtsp_clients"] as? Int, 1, "the same one client after the return")
        XCTAssertFalse(log.contains("ERROR:"), log.suffix(2000).description)
        XCTAssertEqual(log.components(separatedBy: "Setting pipeline to PLAYING").count - 1, 1, "one connection")
        print("rtsp client: \(before.buffers) buffers before the losses, \(lost.buffers) at the disconnect, "
              + "\(back.buffers) when the camera was back, \(end.buffers) 3 s later")
    }

    /// While the camera is away the daemon holds nothing of it: no descriptor, no mapping,
    /// and the driver can be removed.
    func testNothingOfTheLostDeviceIsHeldSoItsDriverCanBeRemoved() throws {
        XCTAssertEqual(try file("fd-while-lost.txt").trimmingCharacters(in: .whitespacesAndNewlines), "",
                       "descriptors of the lost device")
        XCTAssertEqual(try file("maps-while-lost.txt").trimmingCharacters(in: .whitespacesAndNewlines), "",
                       "mappings of the lost device")
        let rmmod = try file("rmmod.txt")
        XCTAssertEqual(try file("rmmod.status").trimmingCharacters(in: .whitespacesAndNewlines), "0", "rmmod vivid: \(rmmod)")
    }

    /// vivid back with its capture node at /dev/video3: the camera configured as /dev/video0
    /// is found again by its name, and the recording goes on in a new file; every file
    /// (one per stretch of camera) is whole for ffprobe.
    func testTheCameraIsFoundAgainUnderAnotherNodeAndTheRecordingGoesOnInANewFile() throws {
        let back = try status("status-back.json")
        let log = try file("serve.log"), nodes = try file("nodes-back.txt")
        XCTAssertEqual(back["state"] as? String, "running", log)
        XCTAssertEqual(back["device"] as? String, "/dev/video3", "nodes: \(nodes)")
        XCTAssertNotNil((back["recording"] as? [String: Any])?["file"] as? String, "recording again")
        let out = try KernelVM.shared.output(of: "vivid-serve-lost")
        let folder = out.appendingPathComponent("recordings")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mp4") }.sorted()
        XCTAssertEqual(files.count, 3, "before the fatal error, before the disconnect, after the return: \(files)")
        for name in files {
            let frames = try IndependentReaders.ffprobeFrameCount(folder.appendingPathComponent(name).path)
            XCTAssertGreaterThan(frames, 0, name)
        }
        XCTAssertEqual(try file("serve.status").trimmingCharacters(in: .whitespacesAndNewlines), "0", "SIGTERM ends it cleanly")
    }
}
