import FoundationEssentials
import Glibc
import GLib

/// `sensor-proxy`: iio-sensor-proxy over D-Bus (`net.hadess.SensorProxy` on the
/// system bus), through the GLib module's D-Bus client.
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
    /// The system bus, the session bus, or an address ("unix:path=/run/dbus/test").
    public typealias Bus = DBusConnection.Bus

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

/// The D-Bus side of `SensorProxyAccelerometer`, one per `events()` call: the
/// iio-sensor-proxy protocol (claim, read, follow, release) over a `DBusConnection`.
///
/// `@unchecked Sendable`: every mutable field is touched only on `thread`, where the
/// connection's callbacks run and where `start()` and `stop()` queue their work.
final class SensorProxyClient: @unchecked Sendable {
    typealias Proxy = SensorProxyAccelerometer
    private static let properties = "org.freedesktop.DBus.Properties"

    private let bus: Proxy.Bus
    private let continuation: AsyncStream<AccelerometerEvent>.Continuation
    private let thread = MainContextThread(name: "plumb.sensor-proxy")
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    // Thread state.
    private var connection: DBusConnection?
    private var subscriptions: [DBusSubscription] = []
    private var owner: String?
    private var claimed = false
    private var stopped = false

    init(bus: Proxy.Bus, continuation: AsyncStream<AccelerometerEvent>.Continuation) {
        self.bus = bus
        self.continuation = continuation
        self.started = clock.now
    }

    func start() {
        thread.enqueue { [self] in connect() }
    }

    /// Releases the claim, closes the connection, ends the thread (once GDBus has called
    /// back everything). Does not wait: it runs from the stream's termination handler, which
    /// must not block (finishing the stream from the thread needs the consumer task's lock).
    func stop() {
        thread.enqueue { [self] in
            teardown()
            thread.requestStop()
        }
    }

    // MARK: On the thread

    private func connect() {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(bus, thread: thread)
            self.connection = connection
            // The bus matches the well-known name against its current owner.
            subscriptions.append(try connection.subscribe(
                sender: Proxy.serviceName, path: Proxy.objectPath, interface: Self.properties,
                member: "PropertiesChanged", arg0: Proxy.interfaceName) { [self] signal in
                propertiesChanged(signal.arguments)
            })
            subscriptions.append(try connection.watchName(
                Proxy.serviceName, appeared: { [self] owner in appeared(owner: owner) }, vanished: { [self] in vanished() }))
        } catch {
            continuation.yield(.unavailable("cannot connect to the \(bus) D-Bus: \(error)"))
            continuation.finish()
        }
    }

    private func appeared(owner: String) {
        guard !stopped, let connection else { return }
        self.owner = owner
        claimed = false
        connection.call(destination: Proxy.serviceName, path: Proxy.objectPath, interface: Proxy.interfaceName,
                        method: "ClaimAccelerometer", replyType: "()", timeout: .seconds(5)) { [self] result in
            guard self.owner == owner, !stopped else { return }
            if case .failure(let error) = result {
                continuation.yield(.unavailable("iio-sensor-proxy refused ClaimAccelerometer: \(error)"))
                return
            }
            claimed = true
            readAllProperties(owner: owner)
        }
    }

    private func readAllProperties(owner: String) {
        connection?.call(destination: Proxy.serviceName, path: Proxy.objectPath, interface: Self.properties,
                         method: "GetAll", arguments: [.string(Proxy.interfaceName)], replyType: "(a{sv})",
                         timeout: .seconds(5)) { [self] result in
            guard self.owner == owner, !stopped else { return }
            let properties: [String: Variant]
            switch result {
            case .success(let reply): properties = reply.first?.dictionary ?? [:]
            case .failure(let error):
                continuation.yield(.unavailable("cannot read iio-sensor-proxy's properties: \(error)"))
                return
            }
            if case .bool(true) = properties["HasAccelerometer"] {
                continuation.yield(.available("iio-sensor-proxy (\(owner))"))
                if case .string(let orientation) = properties["AccelerometerOrientation"] {
                    report(orientation: orientation)
                }
            } else {
                continuation.yield(.unavailable("iio-sensor-proxy has no accelerometer"))
            }
        }
    }

    private func vanished() {
        guard !stopped else { return }
        let wasThere = owner != nil
        owner = nil
        claimed = false
        continuation.yield(.unavailable(wasThere ? "iio-sensor-proxy left the bus"
            : "iio-sensor-proxy is not running (no \(Proxy.serviceName) on the \(bus) bus)"))
    }

    /// PropertiesChanged (interface, changed a{sv}, invalidated as).
    private func propertiesChanged(_ arguments: [Variant]) {
        guard !stopped, owner != nil, arguments.count >= 2, let changed = arguments[1].dictionary else { return }
        if case .bool(let has) = changed["HasAccelerometer"] {
            continuation.yield(has ? .available("iio-sensor-proxy (\(owner ?? ""))")
                : .unavailable("iio-sensor-proxy lost its accelerometer"))
        }
        if case .string(let orientation) = changed["AccelerometerOrientation"] {
            report(orientation: orientation)
        }
    }

    private func report(orientation: String) {
        let time = clock.now - started
        switch Proxy.deviceRotation(forOrientation: orientation) {
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
                _ = try? connection.callSync(destination: Proxy.serviceName, path: Proxy.objectPath,
                                             interface: Proxy.interfaceName, method: "ReleaseAccelerometer",
                                             replyType: "()", timeout: .seconds(1))
            }
            subscriptions.removeAll()
            // Cancels the subscriptions; the thread runs on until GDBus has called back.
            connection.close()
            self.connection = nil
        }
        // Teardown runs when the stream has ended; finishing it again is harmless.
        continuation.finish()
    }
}
