import GStreamer
import XCTest
import GLib

/// GstDeviceMonitor lists video sources (none on a machine without a camera) without GLib noise.
final class DeviceMonitorTests: XCTestCase {
    func testListingVideoSources() throws {
        let (devices, logged) = try GLibLog.capture { () throws -> [Device] in try DeviceMonitor.devices() }
        XCTAssertEqual(logged.map(\.description), [])
        for device in devices {
            XCTAssertTrue(device.deviceClass.contains("Video/Source"), "\(device.deviceClass)")
            XCTAssertFalse(device.name.isEmpty)
        }
    }
}
