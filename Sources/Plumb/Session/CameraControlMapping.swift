import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// The plain control names (`exposure=manual`, `exposure-time=0.01`, `torch=on` ...) as the
/// driver values of standard V4L2 controls; any other name is a driver control's own.
enum CameraControlMapping {
    typealias Mapped = [(V4L2ControlInfo, String, String)]

    /// A word as compared: lower case, '-' for every run of other characters ("Manual Mode" → manual-mode).
    static func word(_ text: String) -> String {
        V4L2ControlInfo.variableName(text).replacing("_", with: "-")
    }

    static func driverValues(name: String, value: String, controls: [V4L2ControlInfo],
                             byID: [UInt32: V4L2ControlInfo]) throws(CameraControlError) -> Mapped {
        typealias ID = CameraControlID
        func need(_ id: UInt32, _ what: String) throws(CameraControlError) -> V4L2ControlInfo {
            guard let control = byID[id] else { throw .missing(name: name, needs: what) }
            return control
        }
        let v = value.lowercased()
        switch name {
        case "exposure":
            let control = try need(ID.exposureAuto, "exposure_auto / auto_exposure")
            let indices = ["auto": 0, "manual": 1, "shutter-priority": 2, "aperture-priority": 3]
            guard var index = indices[v] else {
                throw .invalid(name: name, value: value, accepted: "one of " + offered(control, indices))
            }
            // UVC cameras offer no plain auto: their auto exposure time is aperture priority.
            if index == 0, !control.menu.contains(where: { $0.index == 0 }), control.menu.contains(where: { $0.index == 3 }) { index = 3 }
            guard control.menu.contains(where: { $0.index == Int64(index) }) else {
                throw .invalid(name: name, value: value, accepted: "one of " + offered(control, indices))
            }
            return [(control, String(index), name)]
        case "exposure-time":
            let control = try need(ID.exposureAbsolute, "exposure_time_absolute")
            guard let seconds = Double(value), seconds.isFinite else {
                throw .invalid(name: name, value: value, accepted: "seconds, \(secondsRange(control))")
            }
            let units = Int64((seconds * 10_000).rounded())
            guard abs(Double(units) - seconds * 10_000) < 1e-6, units >= control.minimum, units <= control.maximum,
                  control.step <= 1 || (units - control.minimum) % Int64(control.step) == 0 else {
                throw .invalid(name: name, value: value, accepted: secondsRange(control))
            }
            return [(control, String(units), name)]
        case "exposure-bias":
            let control = try need(ID.autoExposureBias, "auto_exposure_bias")
            guard control.kind == .integerMenu else { return [(control, value, name)] }
            // Integer menu in 0.001 EV: given in EV.
            guard let ev = Double(value), let entry = control.menu.first(where: { Double($0.value ?? .min) == (ev * 1000).rounded() }) else {
                throw .invalid(name: name, value: value, accepted: "EV, one of " + control.menu.compactMap { $0.value.map { evWords($0) } }.joined(separator: ", "))
            }
            return [(control, String(entry.value!), name)]
        case "gain":
            if v == "auto" || v == "manual" { return [(try need(ID.autoGain, "gain_automatic"), v == "auto" ? "1" : "0", name)] }
            return [(try need(ID.gain, "gain"), value, name)]
        case "iso":
            if v == "auto" || v == "manual" {
                let control = try need(ID.isoSensitivityAuto, "iso_sensitivity_auto")
                return [(control, v == "auto" ? "1" : "0", name)]
            }
            return [(try need(ID.isoSensitivity, "iso_sensitivity"), value, name)]
        case "focus":
            switch v {
            case "continuous": return [(try need(ID.focusAuto, "focus_automatic_continuous"), "1", name)]
            case "manual": return [(try need(ID.focusAuto, "focus_automatic_continuous"), "0", name)]
            case "auto":
                // One focus run (V4L2_CID_AUTO_FOCUS_START) where there is one; else continuous.
                if let start = byID[ID.autoFocusStart] {
                    return (byID[ID.focusAuto].map { [($0, "0", name)] } ?? []) + [(start, "1", name)]
                }
                return [(try need(ID.focusAuto, "focus_automatic_continuous or auto_focus_start"), "1", name)]
            default:
                throw .invalid(name: name, value: value, accepted: "auto, continuous, manual")
            }
        case "focus-distance": return [(try need(ID.focusAbsolute, "focus_absolute"), value, name)]
        case "white-balance":
            guard v == "auto" || v == "manual" else { throw .invalid(name: name, value: value, accepted: "auto, manual") }
            return [(try need(ID.autoWhiteBalance, "white_balance_automatic"), v == "auto" ? "1" : "0", name)]
        case "white-balance-temperature": return [(try need(ID.whiteBalanceTemperature, "white_balance_temperature"), value, name)]
        case "brightness": return [(try need(ID.brightness, "brightness"), value, name)]
        case "contrast": return [(try need(ID.contrast, "contrast"), value, name)]
        case "saturation": return [(try need(ID.saturation, "saturation"), value, name)]
        case "sharpness": return [(try need(ID.sharpness, "sharpness"), value, name)]
        case "zoom": return [(try need(ID.zoomAbsolute, "zoom_absolute"), value, name)]
        case "power-line":
            let control = try need(ID.powerLineFrequency, "power_line_frequency")
            let indices = ["off": 0, "50": 1, "50hz": 1, "60": 2, "60hz": 2, "auto": 3]
            guard let index = indices[v], control.menu.contains(where: { $0.index == Int64(index) }) else {
                throw .invalid(name: name, value: value, accepted: "one of " + offered(control, ["off": 0, "50": 1, "60": 2, "auto": 3]))
            }
            return [(control, String(index), name)]
        case "torch":
            let mode = try need(ID.flashLEDMode, "flash_led_mode")
            switch v {
            case "off": return [(mode, "0", name)]
            case "on": return [(mode, "2", name)]
            default:
                guard let intensity = byID[ID.flashTorchIntensity] else {
                    throw .invalid(name: name, value: value, accepted: "on, off (this torch has no intensity)")
                }
                guard Int64(value) != nil else {
                    throw .invalid(name: name, value: value, accepted: "on, off, or an intensity \(CameraControlRequest.rangeWords(intensity))")
                }
                return [(mode, "2", name), (intensity, value, name)]
            }
        default:
            let wanted = name.replacing("-", with: "_")
            guard let control = controls.first(where: { $0.name == wanted }) else {
                let known = CameraControlID.allPlainNames.filter { plainNameAvailable($0, byID) }
                    + controls.filter { CameraControlID.plainNames[$0.id] == nil }.map(\.name)
                throw .unknown(name: name, known: known)
            }
            return [(control, value, control.name)]
        }
    }

    /// Whether the camera has what plain `name` needs.
    static func plainNameAvailable(_ name: String, _ byID: [UInt32: V4L2ControlInfo]) -> Bool {
        CameraControlID.plainNames.contains { $0.value == name && byID[$0.key] != nil }
    }

    /// The plain menu words the camera's menu offers, e.g. "manual, aperture-priority".
    private static func offered(_ control: V4L2ControlInfo, _ words: [String: Int]) -> String {
        words.sorted { $0.value < $1.value }.filter { w in control.menu.contains { $0.index == Int64(w.value) } }
            .map(\.key).joined(separator: ", ")
    }

    private static func secondsRange(_ control: V4L2ControlInfo) -> String {
        "\(seconds(control.minimum)) to \(seconds(control.maximum)) s in steps of \(seconds(Int64(max(1, control.step)))) s"
    }

    private static func seconds(_ units: Int64) -> String {
        let text = String(cFormat: "%.4f", Double(units) / 10_000)
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    private static func evWords(_ milli: Int64) -> String {
        let ev = Double(milli) / 1000
        return ev == ev.rounded() ? String(Int(ev)) : String(ev)
    }
}
