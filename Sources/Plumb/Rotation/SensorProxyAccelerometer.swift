internal import CGio
import Foundation

/// `sensor-proxy`: iio-sensor-proxy over D-Bus (`net.hadess.SensorProxy` on the
/// system bus), through GDBus.
///
/// It claims the accelerometer (`ClaimAccelerometer`), reads
/// `AccelerometerOrientation` and follows its changes (`PropertiesChanged`).
/// The proxy reports an orientation rather than a vector; each is reported as the
/// reading of a device at rest in that orientation, so the same coordinator
/// (mount, facing, hysteresis) applies: "normal" -> 0, "left-up" (the left edge
/// up: turned 90° clockwise) -> 90, "bottom-up" -> 180, "right-up" -> 270, and
/// "undefined" (lying flat, or not known yet) as a device lying flat, which keeps
/// the last angle. When the service leaves the bus or loses its sensor, that is
/// reported and the last angle holds; when it comes back the sensor is claimed again.
public struct SensorProxyAccelerometer: Accelerometer {
    public enum Bus: Sendable, Equatable, CustomStringConvertible {
        case system
        case session
        /// A D-Bus address ("unix:path=/run/dbus/test"), for tests and unusual set-ups.
        case address(String)

        public var description: String {
            switch self {
            case .system: return "system"
            case .session: return "session"
            case .address(let a): return a
            }
        }
    }

    public static let serviceName = "net.hadess.SensorProxy"
    public static let objectPath = "/net/hadess/SensorProxy"
    public static let interfaceName = "net.hadess.SensorProxy"

    public let bus: Bus

    public init(bus: Bus = .system) {
        self.bus = bus
    }

    public var description: String { bus == .system ? "sensor-proxy" : "sensor-proxy:\(bus)" }

    /// The device rotation for an `AccelerometerOrientation` value: nil for "undefined";
    /// `.failure` for a value iio-sensor-proxy does not define.
    public static func deviceRotation(forOrientation orientation: String) -> Result<RotationAngle?, MalformedSample> {
        switch orientation {
        case "normal": return .success(.degrees0)
        case "left-up": return .success(.degrees90)
        case "bottom-up": return .success(.degrees180)
        case "right-up": return .success(.degrees270)
        case "undefined", "": return .success(nil)
        default: return .failure(.nonNumeric(orientation))
        }
    }

    public func events() -> AsyncStream<AccelerometerEvent> {
        let (stream, continuation) = AsyncStream<AccelerometerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let client = SensorProxyClient(bus: bus, continuation: continuation)
        client.start()
        continuation.onTermination = { _ in client.stop() }
        return stream
    }
}

/// The GDBus side of `SensorProxyAccelerometer`: one per `events()` call.
///
/// `@unchecked Sendable`: every GLib object and every mutable field is touched
/// only on `loop`'s thread (start, callbacks and stop all run there via
/// `invoke`/`sync`); other threads only call `start()`/`stop()`.
final class SensorProxyClient: @unchecked Sendable {
    private let bus: SensorProxyAccelerometer.Bus
    private let continuation: AsyncStream<AccelerometerEvent>.Continuation
    private let loop = GLibLoopThread(name: "plumb.sensor-proxy")
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    // Loop-thread state.
    private var connection: OpaquePointer?
    private var watchID: guint = 0
    private var subscriptionID: guint = 0
    private var owner: String?
    private var claimed = false
    private var stopped = false

    init(bus: SensorProxyAccelerometer.Bus, continuation: AsyncStream<AccelerometerEvent>.Continuation) {
        self.bus = bus
        self.continuation = continuation
        self.started = clock.now
    }

    func start() {
        loop.invoke { [self] in connect() }
    }

    /// Releases the claim, drops the subscriptions and the connection, ends the thread.
    /// Does not wait: it runs from the stream's termination handler, which must not block
    /// (finishing the stream from the loop thread needs the consumer task's lock).
    func stop() {
        loop.invoke { [self] in
            teardown()
            loop.stop()
        }
    }

    // MARK: Loop thread

    private var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func connect() {
        var error: UnsafeMutablePointer<GError>?
        switch bus {
        case .system, .session:
            connection = g_bus_get_sync(bus == .system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, nil, &error)
            // The shared bus connection would otherwise end the whole process when the bus goes away.
            if let connection { g_dbus_connection_set_exit_on_close(connection, 0) }
        case .address(let address):
            let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error)
        }
        guard let connection else {
            continuation.yield(.unavailable("cannot connect to the \(bus) D-Bus: \(takeError(error))"))
            continuation.finish()
            return
        }
        // Retained for as long as the subscription and watch live; released by their destroy notifies.
        subscriptionID = g_dbus_connection_signal_subscribe(
            connection, SensorProxyAccelerometer.serviceName, "org.freedesktop.DBus.Properties", "PropertiesChanged",
            SensorProxyAccelerometer.objectPath, SensorProxyAccelerometer.interfaceName, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters, let userData else { return }
                Unmanaged<SensorProxyClient>.fromOpaque(userData).takeUnretainedValue().propertiesChanged(parameters)
            }, Unmanaged.passRetained(self).toOpaque(), { userData in
                if let userData { Unmanaged<SensorProxyClient>.fromOpaque(userData).release() }
            })
        watchID = g_bus_watch_name_on_connection(
            connection, SensorProxyAccelerometer.serviceName, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, nameOwner, userData in
                guard let userData else { return }
                let owner = nameOwner.map { String(cString: $0) } ?? ""
                Unmanaged<SensorProxyClient>.fromOpaque(userData).takeUnretainedValue().appeared(owner: owner)
            }, { _, _, userData in
                guard let userData else { return }
                Unmanaged<SensorProxyClient>.fromOpaque(userData).takeUnretainedValue().vanished()
            }, Unmanaged.passRetained(self).toOpaque(), { userData in
                if let userData { Unmanaged<SensorProxyClient>.fromOpaque(userData).release() }
            })
    }

    private func appeared(owner: String) {
        guard !stopped else { return }
        self.owner = owner
        claimed = false
        call("ClaimAccelerometer", interface: SensorProxyAccelerometer.interfaceName, parameters: nil) { client, reply, error in
            guard client.owner == owner, !client.stopped else { return }
            guard reply != nil else {
                client.continuation.yield(.unavailable("iio-sensor-proxy refused ClaimAccelerometer: \(error)"))
                return
            }
            client.claimed = true
            client.readAllProperties(owner: owner)
        }
    }

    private func readAllProperties(owner: String) {
        var name: OpaquePointer? = g_variant_new_string(SensorProxyAccelerometer.interfaceName)
        let parameters = g_variant_new_tuple(&name, 1)
        call("GetAll", interface: "org.freedesktop.DBus.Properties", parameters: parameters) { client, reply, error in
            guard client.owner == owner, !client.stopped else { return }
            guard let reply else {
                client.continuation.yield(.unavailable("cannot read iio-sensor-proxy's properties: \(error)"))
                return
            }
            let properties = g_variant_get_child_value(reply, 0)!
            defer { g_variant_unref(properties) }
            let has = Self.bool(properties, "HasAccelerometer") ?? false
            if has {
                client.continuation.yield(.available("iio-sensor-proxy (\(owner))"))
                if let orientation = Self.string(properties, "AccelerometerOrientation") {
                    client.report(orientation: orientation)
                }
            } else {
                client.continuation.yield(.unavailable("iio-sensor-proxy has no accelerometer"))
            }
        }
    }

    private func vanished() {
        guard !stopped else { return }
        let wasThere = owner != nil
        owner = nil
        claimed = false
        continuation.yield(.unavailable(wasThere ? "iio-sensor-proxy left the bus"
            : "iio-sensor-proxy is not running (no \(SensorProxyAccelerometer.serviceName) on the \(bus) bus)"))
    }

    private func propertiesChanged(_ parameters: OpaquePointer) {
        guard !stopped, owner != nil, g_variant_n_children(parameters) >= 2 else { return }
        let changed = g_variant_get_child_value(parameters, 1)!
        defer { g_variant_unref(changed) }
        if let has = Self.bool(changed, "HasAccelerometer") {
            continuation.yield(has ? .available("iio-sensor-proxy (\(owner ?? ""))")
                : .unavailable("iio-sensor-proxy lost its accelerometer"))
        }
        if let orientation = Self.string(changed, "AccelerometerOrientation") {
            report(orientation: orientation)
        }
    }

    private func report(orientation: String) {
        let time = clock.now - started
        switch SensorProxyAccelerometer.deviceRotation(forOrientation: orientation) {
        case .success(let rotation?): continuation.yield(.sample(.resting(rotation, time: time)))
        case .success(nil): continuation.yield(.sample(.lyingFlat(time: time)))
        case .failure(let why): continuation.yield(.dropped(why))
        }
    }

    private func teardown() {
        guard !stopped else { return }
        stopped = true
        if let connection {
            if claimed, owner != nil {
                // Synchronous so the release is on the wire before the connection goes.
                let reply = g_dbus_connection_call_sync(
                    connection, SensorProxyAccelerometer.serviceName, SensorProxyAccelerometer.objectPath,
                    SensorProxyAccelerometer.interfaceName, "ReleaseAccelerometer", nil, nil,
                    G_DBUS_CALL_FLAGS_NONE, 1000, nil, nil)
                if let reply { g_variant_unref(reply) }
            }
            if watchID != 0 { g_bus_unwatch_name(watchID) }
            if subscriptionID != 0 { g_dbus_connection_signal_unsubscribe(connection, subscriptionID) }
            g_object_unref(UnsafeMutableRawPointer(connection))
            self.connection = nil
        }
        // Teardown runs when the stream has ended; finishing it again is harmless.
        continuation.finish()
    }

    // MARK: GDBus helpers

    private typealias Reply = (SensorProxyClient, OpaquePointer?, String) -> Void

    /// An asynchronous method call on the proxy's object; `done` runs on the loop thread
    /// with the reply (nil on error) and the error text. `parameters` is consumed if floating.
    private func call(_ method: String, interface: String, parameters: OpaquePointer?, done: @escaping Reply) {
        guard let connection else { return }
        let context = Unmanaged.passRetained(CallContext(client: self, done: done)).toOpaque()
        g_dbus_connection_call(connection, SensorProxyAccelerometer.serviceName, SensorProxyAccelerometer.objectPath,
                               interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil,
                               { source, result, userData in
            let context = Unmanaged<CallContext>.fromOpaque(userData!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
            let text = takeError(error)
            context.done(context.client, reply, text)
            if let reply { g_variant_unref(reply) }
        }, context)
    }

    private final class CallContext {
        let client: SensorProxyClient
        let done: Reply
        init(client: SensorProxyClient, done: @escaping Reply) {
            self.client = client
            self.done = done
        }
    }

    /// A string entry of an a{sv} dictionary.
    static func string(_ dictionary: OpaquePointer, _ key: String) -> String? {
        guard let value = g_variant_lookup_value(dictionary, key, nil) else { return nil }
        defer { g_variant_unref(value) }
        guard String(cString: g_variant_get_type_string(value)) == "s" else { return nil }
        return String(cString: g_variant_get_string(value, nil))
    }

    /// A boolean entry of an a{sv} dictionary.
    static func bool(_ dictionary: OpaquePointer, _ key: String) -> Bool? {
        guard let value = g_variant_lookup_value(dictionary, key, nil) else { return nil }
        defer { g_variant_unref(value) }
        guard String(cString: g_variant_get_type_string(value)) == "b" else { return nil }
        return g_variant_get_boolean(value) != 0
    }
}

/// The message of a GError, which is freed.
func takeError(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
