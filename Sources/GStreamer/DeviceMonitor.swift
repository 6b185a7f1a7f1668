internal import CGStreamer
import GLib

/// A capture device found by GstDeviceMonitor.
public struct Device: Sendable {
    public var name: String
    /// "Video/Source"
    public var deviceClass: String
    public var caps: Caps?
    /// The provider's properties: device.path / api.v4l2.path, driver, bus ...
    public var properties: Structure?
    /// The factory of the element the device makes ("v4l2src", "libcamerasrc").
    public var elementFactory: String?

    /// The device node, from whichever property the provider set.
    public var path: String? {
        for key in ["api.v4l2.path", "device.path", "object.path"] {
            if let p = properties?.string(key) { return p }
        }
        return nil
    }
}

/// GstDeviceMonitor: a one-shot listing of devices of a class.
public enum DeviceMonitor {
    /// Lists the devices of `deviceClass` ("Video/Source") that the installed
    /// providers see right now. Starting the monitor probes the providers synchronously.
    public static func devices(ofClass deviceClass: String = "Video/Source") throws(GStreamerError) -> [Device] {
        try Gst.initialize()
        let monitor = gst_device_monitor_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
        gst_device_monitor_add_filter(monitor, deviceClass, nil)
        guard gst_device_monitor_start(monitor) != 0 else {
            // No provider could start: the same as no devices, but worth saying.
            return []
        }
        defer { gst_device_monitor_stop(monitor) }
        var result: [Device] = []
        var list = gst_device_monitor_get_devices(monitor)
        let head = list
        while let node = list {
            let device: UnsafeMutablePointer<GstDevice> = cast(node.pointee.data)
            result.append(Device(
                name: takeString(gst_device_get_display_name(device)) ?? "?",
                deviceClass: takeString(gst_device_get_device_class(device)) ?? deviceClass,
                caps: gst_device_get_caps(device).map { Caps(taking: $0) },
                properties: gst_device_get_properties(device).map { Structure(taking: $0) },
                elementFactory: factoryName(of: device)))
            list = node.pointee.next
        }
        g_list_free_full(head, { gst_object_unref($0) })
        return result
    }

    /// Makes the device's element (not started: a camera is not opened by it) to learn its factory.
    private static func factoryName(of device: UnsafeMutablePointer<GstDevice>) -> String? {
        guard let element = gst_device_create_element(device, nil) else { return nil }
        return Element.wrap(UnsafeMutableRawPointer(element), retain: false).factoryName
    }
}
