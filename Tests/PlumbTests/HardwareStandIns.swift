import CStandIns
@testable import Plumb
import Foundation
import GStreamer
import Synchronization
import XCTest

/// Stand-ins for the hardware elements no test machine has, registered in this test
/// process only (`Tests/CStandIns`): factories under the hardware names that wrap x264enc
/// and x265enc behind the hardware element's properties, formats, alignment and failures.
///
/// They start unplugged — their `device` names a node that does not exist, so the encoder
/// choice passes them over ("device node ... missing") and the other tests of the process
/// keep x264enc. A test plugs one (`plug`), which its teardown undoes.
enum HardwareStandIns {
    /// Like the Raspberry Pi 4's bcm2835-codec: I420 or NV12, sides multiples of 16.
    static let v4l2Formats = "video/x-raw,format={I420,NV12}"
    /// Like Intel's iHD VA driver: NV12 only.
    static let vaFormats = "video/x-raw,format=NV12"
    static let alignment: UInt32 = 16

    private static let registered = Mutex(false)

    /// A file that stands for the device nodes of plugged stand-ins.
    static let node: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-stand-in-node-\(getpid())").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        return path
    }()

    static let unplugged = "/nonexistent/plumb-stand-in/device"

    static let names = ["v4l2h264enc", "v4l2h265enc", "vah264enc", "vah265enc", "v4l2jpegdec"]

    static func register() throws {
        try Gst.initialize()
        try registered.withLock { done in
            guard !done else { return }
            for (name, inner, kind, caps) in [
                ("v4l2h264enc", "x264enc", PLUMB_STAND_IN_V4L2, v4l2Formats),
                ("v4l2h265enc", "x265enc", PLUMB_STAND_IN_V4L2, v4l2Formats),
                ("vah264enc", "x264enc", PLUMB_STAND_IN_VA, vaFormats),
                ("vah265enc", "x265enc", PLUMB_STAND_IN_VA, vaFormats),
                // The Raspberry Pi's V4L2 JPEG decoder: JPEG in, raw out (jpegdec inside).
                ("v4l2jpegdec", "jpegdec", PLUMB_STAND_IN_V4L2, "image/jpeg"),
            ] {
                guard plumb_stand_in_register(name, inner, kind, caps, alignment) != 0 else {
                    throw StandInError(text: "a real \(name) is installed here: the stand-in cannot take its name")
                }
                plumb_stand_in_set_device(name, unplugged)
            }
            done = true
        }
    }

    private static let libcameraRegistered = Mutex(false)

    /// Connects the libcamera stand-in's cameras (`libcamerasrc` and libcamera's device
    /// provider, as Debian's gstreamer1.0-libcamera brings them) until the test ends.
    static func connectLibcameras(_ ids: [String], in test: XCTestCase) throws {
        try Gst.initialize()
        try libcameraRegistered.withLock { done in
            guard !done else { return }
            guard plumb_stand_in_register_libcamera() != 0 else {
                throw StandInError(text: "a real libcamerasrc is installed here: the stand-in cannot take its name")
            }
            done = true
        }
        setLibcameras(ids)
        test.addTeardownBlock { setLibcameras([]) }
    }

    private static func setLibcameras(_ ids: [String]) {
        var pointers: [UnsafePointer<CChar>?] = ids.map { UnsafePointer(strdup($0)) }
        pointers.append(nil)
        pointers.withUnsafeBufferPointer { plumb_stand_in_set_libcameras($0.baseAddress) }
        for p in pointers { free(UnsafeMutablePointer(mutating: p)) }
    }

    /// Makes `name` usable until the test ends.
    static func plug(_ name: String, in test: XCTestCase) throws {
        try register()
        plumb_stand_in_set_device(name, node)
        test.addTeardownBlock { plumb_stand_in_set_device(name, unplugged) }
    }

    /// Makes the plugged stand-ins in `names` fail at start (as a driver refusing to open)
    /// until the test ends.
    static func failAtStart(_ names: [String], in test: XCTestCase) {
        setenv("PLUMB_STAND_IN_FAIL", names.joined(separator: ","), 1)
        test.addTeardownBlock { unsetenv("PLUMB_STAND_IN_FAIL") }
    }
}

struct StandInError: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}

extension HardwareStandIns {
    /// Makes the stand-ins in `names` fail a few frames into every run (a driver error
    /// while running) until the test ends; the encoders' failure counts are reset then.
    static func failWhileRunning(_ names: [String], in test: XCTestCase) {
        setenv("PLUMB_STAND_IN_FAIL_RUNNING", names.joined(separator: ","), 1)
        test.addTeardownBlock {
            unsetenv("PLUMB_STAND_IN_FAIL_RUNNING")
            EncoderHealth.reset()
        }
    }
}
