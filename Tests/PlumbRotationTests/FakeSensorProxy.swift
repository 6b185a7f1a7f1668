import CGio
import Foundation
import GLib
import PlumbRotation
import PlumbTestSupport
import Synchronization
import XCTest

/// A stand-in for iio-sensor-proxy: owns net.hadess.SensorProxy on a bus and serves
/// ClaimAccelerometer, ReleaseAccelerometer, HasAccelerometer and AccelerometerOrientation,
/// emitting PropertiesChanged like the real service. Written against GDBus directly.
///
/// `@unchecked Sendable`: GLib state is touched only on `loop`'s thread; what tests read is in Mutexes.
final class FakeSensorProxy: @unchecked Sendable {
    static let introspection = """
        <node>
          <interface name='net.hadess.SensorProxy'>
            <method name='ClaimAccelerometer'/>
            <method name='ReleaseAccelerometer'/>
            <property name='HasAccelerometer' type='b' access='read'/>
            <property name='AccelerometerOrientation' type='s' access='read'/>
          </interface>
        </node>
        """

    let claims = Mutex<[String]>([])
    let releases = Mutex<[String]>([])
    private let loop = MainContextThread(name: "fake-sensor-proxy")
    private var connection: OpaquePointer?
    private var node: UnsafeMutablePointer<GDBusNodeInfo>?
    private var registration: guint = 0
    private var orientation: String
    private var hasAccelerometer = true

    init(address: String, orientation: String = "normal") throws {
        self.orientation = orientation
        let error: String? = loop.sync { [self] in setUp(address) }
        if let error { throw AccelerometerError(error) }
    }

    deinit {
        loop.sync { [self] in
            if let connection {
                if registration != 0 { g_dbus_connection_unregister_object(connection, registration) }
                g_dbus_connection_close_sync(connection, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(connection))
            }
            if let node { g_dbus_node_info_unref(node) }
        }
        loop.stop()
    }

    private func setUp(_ address: String) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error)
        guard let connection else { return takeError(error) }
        node = g_dbus_node_info_new_for_xml(Self.introspection, &error)
        guard let node else { return takeError(error) }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, sender, _, _, method, _, invocation, userData in
            let fake = Unmanaged<FakeSensorProxy>.fromOpaque(userData!).takeUnretainedValue()
            let who = sender.map { String(cString: $0) } ?? "?"
            switch String(cString: method!) {
            case "ClaimAccelerometer": fake.claims.withLock { $0.append(who) }
            default: fake.releases.withLock { $0.append(who) }
            }
            g_dbus_method_invocation_return_value(invocation, nil)
        }
        vtable.get_property = { _, _, _, _, property, _, userData in
            let fake = Unmanaged<FakeSensorProxy>.fromOpaque(userData!).takeUnretainedValue()
            switch String(cString: property!) {
            case "HasAccelerometer": return g_variant_new_boolean(fake.hasAccelerometer ? 1 : 0)
            default: return g_variant_new_string(fake.orientation)
            }
        }
        let interface = g_dbus_node_info_lookup_interface(node, SensorProxyAccelerometer.interfaceName)
        registration = g_dbus_connection_register_object(
            connection, SensorProxyAccelerometer.objectPath, interface, &vtable,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        guard registration != 0 else { return takeError(error) }
        return requestName()
    }

    /// org.freedesktop.DBus.RequestName / ReleaseName, synchronously; nil on success.
    private func busCall(_ method: String, _ parameters: OpaquePointer) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                "org.freedesktop.DBus", method, parameters, nil,
                                                G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        guard let reply else { return takeError(error) }
        g_variant_unref(reply)
        return nil
    }

    private func requestName() -> String? {
        var children: [OpaquePointer?] = [g_variant_new_string(SensorProxyAccelerometer.serviceName),
                                          g_variant_new_uint32(4)]  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        return busCall("RequestName", g_variant_new_tuple(&children, 2))
    }

    /// Leaves the bus name (as a crashed or stopped service does); the object stays registered.
    func leaveBus() {
        loop.sync { [self] in
            var child: OpaquePointer? = g_variant_new_string(SensorProxyAccelerometer.serviceName)
            XCTAssertNil(busCall("ReleaseName", g_variant_new_tuple(&child, 1)))
        }
    }

    func joinBus() {
        loop.sync { [self] in XCTAssertNil(requestName()) }
    }

    func setOrientation(_ value: String) {
        loop.sync { [self] in
            orientation = value
            emitChanged("{'AccelerometerOrientation': <'\(value)'>}")
        }
    }

    func setHasAccelerometer(_ value: Bool) {
        loop.sync { [self] in
            hasAccelerometer = value
            emitChanged("{'HasAccelerometer': <\(value)>}")
        }
    }

    private func emitChanged(_ dictionary: String) {
        var error: UnsafeMutablePointer<GError>?
        let text = "('\(SensorProxyAccelerometer.interfaceName)', \(dictionary), @as [])"
        guard let parameters = g_variant_parse(nil, text, nil, nil, &error) else {
            return XCTFail("g_variant_parse \(text): \(takeError(error))")
        }
        defer { g_variant_unref(parameters) }
        if g_dbus_connection_emit_signal(connection, nil, SensorProxyAccelerometer.objectPath,
                                         "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                         parameters, &error) == 0 {
            XCTFail("emit PropertiesChanged: \(takeError(error))")
        }
    }
}

/// The message of a GError, which is freed.
private func takeError(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
