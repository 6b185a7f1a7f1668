import GStreamer

/// A camera's controls read at one moment (a still's capture, a recording's start): the
/// values in force, and the exposure facts a photo carries (EXIF and JSON). A control counts
/// only while it is in force: active in the camera's mode, or volatile (then the value read
/// is what the driver itself set, e.g. gain under auto gain). An inactive, non-volatile one
/// (exposure time under auto on most cameras) holds a stale value and is left out.
public struct CameraControlReading: Sendable, Equatable {
    public var controls: [V4L2ControlInfo]
    public var values: [UInt32: V4L2ControlValue]

    public init(controls: [V4L2ControlInfo], values: [UInt32: V4L2ControlValue]) {
        self.controls = controls
        self.values = values
    }

    /// A stand-in camera's listing (`v4l2-ctl --list-ctrls-menus`), for tests.
    public init(_ listing: CameraControlListing) {
        self.init(controls: listing.controls, values: listing.values)
    }

    /// The controls of `camera` as they are now; nil for a camera without V4L2 controls
    /// (the test pattern, libcamera, an image) or a node that cannot be opened (gone).
    /// Flags are listed again too: inactive and volatile change with the modes.
    public static func read(_ camera: CameraSource) -> CameraControlReading? {
        guard case .device(let device) = camera else { return nil }
        guard let node = try? V4L2ControlDevice(path: device.path), let controls = try? node.controls() else { return nil }
        return CameraControlReading(controls: controls, values: node.values(of: controls))
    }

    private func control(_ id: UInt32) -> V4L2ControlInfo? { controls.first { $0.id == id } }

    /// The value of `id` when the control is in force.
    func inForce(_ id: UInt32) -> V4L2ControlValue? {
        guard let control = control(id) else { return nil }
        return inForce(control)
    }

    private func inForce(_ control: V4L2ControlInfo) -> V4L2ControlValue? {
        guard control.isReadable, !control.flags.contains(.disabled),
              !control.flags.contains(.inactive) || control.flags.contains(.volatile) else { return nil }
        return values[control.id]
    }

    /// The exposure time in the driver's units (V4L2_CID_EXPOSURE_ABSOLUTE: 100 µs).
    public var exposureTimeUnits: Int64? { inForce(CameraControlID.exposureAbsolute)?.integer.flatMap { $0 > 0 ? $0 : nil } }

    /// The exposure time in seconds.
    public var exposureTime: Double? { exposureTimeUnits.map { Double($0) / 10_000 } }

    /// The exposure mode as `exposure=` takes it: auto, manual, shutter-priority or aperture-priority.
    public var exposureMode: String? {
        guard let index = inForce(CameraControlID.exposureAuto)?.integer, (0...3).contains(index) else { return nil }
        return ["auto", "manual", "shutter-priority", "aperture-priority"][Int(index)]
    }

    /// auto or manual (`white-balance=`).
    public var whiteBalance: String? {
        inForce(CameraControlID.autoWhiteBalance)?.integer.map { $0 != 0 ? "auto" : "manual" }
    }

    /// The ISO speed: V4L2_CID_ISO_SENSITIVITY is an integer menu, its entries the ISO numbers.
    public var iso: Int? {
        guard let index = inForce(CameraControlID.isoSensitivity)?.integer,
              let entry = control(CameraControlID.isoSensitivity)?.menu.first(where: { $0.index == index }),
              let value = entry.value, value > 0 else { return nil }
        return Int(value)
    }

    /// The gain, in the driver's own units (V4L2 gives gain no unit, so it is no ISO).
    public var gain: Int? { inForce(CameraControlID.gain)?.integer.map { Int($0) } }

    /// Every control in force, under its plain name (its value as the plain name takes it:
    /// exposure=manual, exposure-time in seconds, iso and exposure-bias as numbers) or its
    /// driver name (a menu's entry as a word, others as numbers or text): every entry can be
    /// given back as `--control NAME=VALUE`. Plain names shared by a mode control and its
    /// value (gain and gain_automatic) give the value control the plain name.
    public var inForce: [String: CameraControlFact] {
        typealias ID = CameraControlID
        var facts: [String: CameraControlFact] = [:]
        for control in controls where control.kind != .controlClass {
            guard let value = inForce(control) else { continue }
            let number = value.integer
            switch control.id {
            case ID.exposureAuto: if let mode = exposureMode { facts["exposure"] = .word(mode) }
            case ID.exposureAbsolute: if let seconds = exposureTime { facts["exposure-time"] = .number(seconds) }
            case ID.autoWhiteBalance: if let wb = whiteBalance { facts["white-balance"] = .word(wb) }
            case ID.focusAuto: facts["focus"] = .word(number == 0 ? "manual" : "continuous")
            case ID.isoSensitivity: if let iso { facts["iso"] = .integer(Int64(iso)) }
            case ID.autoExposureBias where control.kind == .integerMenu:
                if let milli = control.menu.first(where: { $0.index == number })?.value { facts["exposure-bias"] = .number(Double(milli) / 1000) }
            case ID.powerLineFrequency:
                let words = [0: "off", 1: "50", 2: "60", 3: "auto"]
                facts["power-line"] = number.flatMap { words[Int($0)] }.map { .word($0) } ?? .integer(number ?? 0)
            case ID.flashLEDMode:
                facts["torch"] = number == 0 ? .word("off") : number == 2 ? .word("on") : .integer(number ?? 0)
            case ID.gain, ID.autoExposureBias, ID.focusAbsolute, ID.whiteBalanceTemperature, ID.brightness, ID.contrast,
                 ID.saturation, ID.sharpness, ID.zoomAbsolute:
                facts[ID.plainNames[control.id]!] = Self.fact(control, value)
            default:
                facts[control.name] = Self.fact(control, value)
            }
        }
        return facts
    }

    /// A driver control's value as `--control` takes it.
    private static func fact(_ control: V4L2ControlInfo, _ value: V4L2ControlValue) -> CameraControlFact {
        switch (control.kind, value) {
        case (_, .string(let text)): return .word(text)
        case (.menu, .integer(let index)):
            return control.menu.first { $0.index == index }?.name.map { .word(CameraControlMapping.word($0)) } ?? .integer(index)
        case (.integerMenu, .integer(let index)):
            return .integer(control.menu.first { $0.index == index }?.value ?? index)
        case (_, .integer(let number)): return .integer(number)
        }
    }
}

/// One control's value in the facts: a whole number, seconds or EV, or a word.
public enum CameraControlFact: Sendable, Hashable, Codable, CustomStringConvertible {
    case integer(Int64)
    case number(Double)
    case word(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .word(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let v): try container.encode(v)
        case .number(let v): try container.encode(v)
        case .word(let v): try container.encode(v)
        }
    }

    public var description: String {
        switch self {
        case .integer(let v): String(v)
        case .number(let v): String(v)
        case .word(let v): v
        }
    }
}
