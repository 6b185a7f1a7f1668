import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// Picks the camera mode closest to a request, from the caps the camera offers.
///
/// A preferred encoding (raw or MJPEG), when given, narrows the choice to the modes in
/// that encoding — unless the camera offers none, when it is ignored. Then the fallbacks,
/// in order (each step only when the one before finds nothing):
/// 1. the requested size at the requested rate, raw before MJPEG (no decoding cost), and
///    among raw formats the tee's I420, then NV12 (no or little conversion);
/// 2. the requested size at the nearest rate the camera offers — MJPEG at the right rate
///    beats raw at a wrong one, because USB cameras often send raw only at low rates;
/// 3. the size nearest in area (then in aspect ratio), at the nearest rate.
/// Frames are never scaled or re-timed: the session's format reports what the camera
/// really delivers. Sizes and rates offered as ranges are met exactly when the
/// request falls inside them and clamped to the nearest end when it does not.
public enum ModeChooser {
    /// Every mode in `caps` (video/x-raw and image/jpeg structures; others are skipped),
    /// ranges resolved against the request.
    public static func modes(in caps: Caps, requested size: VideoSize, rate: FrameRate) -> [CameraMode] {
        var result: [CameraMode] = []
        for s in caps.structures {
            let encodings: [CameraMode.Encoding]
            switch s.name {
            case "video/x-raw":
                let formats = s.values("format").map(unquote)
                encodings = formats.isEmpty ? [.raw("YUY2")] : formats.map { .raw($0) }
            case "image/jpeg":
                encodings = [.mjpeg]
            default:
                continue
            }
            var offered = s.values("framerate").flatMap { Self.rates($0, requested: rate) }
            if offered.isEmpty { offered = [rate] }
            for e in encodings {
                for sz in sizes(of: s, requested: size) {
                    for r in offered { result.append(CameraMode(encoding: e, size: sz, rate: r)) }
                }
            }
        }
        return result
    }

    /// The sizes a caps structure offers, ranges met at `requested` (clamped).
    private static func sizes(of s: Structure, requested size: VideoSize) -> [VideoSize] {
        let widths = integers(s.values("width"), requested: size.width)
        let heights = integers(s.values("height"), requested: size.height)
        // Width and height lists pair up by index (v4l2src writes one size per structure);
        // when their lengths differ, every combination is offered.
        return widths.count == heights.count
            ? zip(widths, heights).map { VideoSize(width: $0, height: $1) }
            : widths.flatMap { w in heights.map { VideoSize(width: w, height: $0) } }
    }

    /// The best mode for the request, or nil when there are none.
    public static func choose(from modes: [CameraMode], size: VideoSize, rate: FrameRate,
                              encoding: Preference = .any) -> CameraMode? {
        let preferred = modes.filter { encoding.accepts($0) }
        return (preferred.isEmpty ? modes : preferred).min { score($0, size, rate) < score($1, size, rate) }
    }

    /// nil when `chosen` gives `rate` (within 0.5 %: 30000/1001 is 30); otherwise what the
    /// camera gives instead, for `CameraError.Cause.rateUnavailable`: every rate `caps` offer
    /// at the chosen size, by encoding ("1280x720 at 10, 5 fps (YUY2); 30, 15 fps (MJPG)",
    /// "640x480 at 1 to 120 fps (NV12, I420)"). For a request that must be met rather than
    /// replaced by the nearest rate.
    public static func rateProblem(chosen: CameraMode, offered caps: Caps, rate: FrameRate) -> String? {
        guard abs(chosen.rate.perSecond - rate.perSecond) > rate.perSecond * 0.005 else { return nil }
        var byRates: [(rates: [String], encodings: [String])] = []
        for s in caps.structures {
            let encodings: [String]
            switch s.name {
            case "video/x-raw":
                let formats = s.values("format").map(unquote)
                encodings = formats.isEmpty ? ["YUY2"] : formats
            case "image/jpeg":
                encodings = ["MJPG"]
            default:
                continue
            }
            guard sizes(of: s, requested: chosen.size).contains(chosen.size) else { continue }
            let rates = s.values("framerate").compactMap(rateText)
            if let i = byRates.firstIndex(where: { $0.rates == rates }) {
                byRates[i].encodings += encodings.filter { !byRates[i].encodings.contains($0) }
            } else {
                byRates.append((rates, encodings))
            }
        }
        let listed = byRates.map { "\($0.rates.joined(separator: ", ")) fps (\($0.encodings.joined(separator: ", ")))" }
        return "\(number(rate.perSecond)) fps asked for; it gives \(chosen.size) at " + listed.joined(separator: "; ")
    }

    /// "30" for "30/1", "29.97" for "30000/1001", "1 to 120" for a range.
    private static func rateText(_ value: String) -> String? {
        if !value.contains("[") { return FrameRate(parsing: value).map { number($0.perSecond) } }
        let bounds = rangeBounds(value).compactMap { FrameRate(parsing: $0) }
        guard bounds.count >= 2 else { return nil }
        return "\(number(bounds[0].perSecond)) to \(number(bounds[1].perSecond))"
    }

    private static func number(_ r: Double) -> String {
        r == r.rounded() ? String(Int(r)) : String(cFormat: "%.2f", r)
    }

    /// Which encoding the camera should send, when it offers a choice.
    public enum Preference: String, Sendable, CaseIterable {
        /// Whatever fits the size and rate best (raw when it is a tie).
        case any
        /// Raw video (YUY2, NV12 ...): no decoding, more USB bandwidth.
        case raw
        /// MJPEG: higher sizes and rates over USB, decoded on the CPU.
        case mjpeg

        func accepts(_ mode: CameraMode) -> Bool {
            switch self {
            case .any: return true
            case .raw: return !mode.isMJPEG
            case .mjpeg: return mode.isMJPEG
            }
        }
    }

    private struct Score: Comparable {
        var sizeDistance: Double
        var rateDistance: Double
        var decode: Int
        /// Among raw formats: the tee's own (I420) needs no conversion, NV12 a cheap one.
        var conversion: Int
        static func < (a: Score, b: Score) -> Bool {
            (a.sizeDistance, a.rateDistance, a.decode, a.conversion) < (b.sizeDistance, b.rateDistance, b.decode, b.conversion)
        }
    }

    private static func score(_ m: CameraMode, _ size: VideoSize, _ rate: FrameRate) -> Score {
        let sizeDistance: Double
        if m.size == size {
            sizeDistance = 0
        } else {
            let area = abs(Double(m.size.area - size.area)) / Double(max(size.area, 1))
            let aspect = abs(Double(m.size.width) / Double(m.size.height) - Double(size.width) / Double(size.height))
            sizeDistance = 1 + area + aspect / 100
        }
        let conversion: Int
        switch m.encoding {
        case .raw(CaptureFormat.pixelFormat), .mjpeg: conversion = 0
        case .raw("NV12"): conversion = 1
        case .raw: conversion = 2
        }
        return Score(sizeDistance: sizeDistance, rateDistance: abs(m.rate.perSecond - rate.perSecond),
                     decode: m.isMJPEG ? 1 : 0, conversion: conversion)
    }

    private static func unquote(_ s: String) -> String {
        s.trimming("\" ")
    }

    /// "640", or a range "[ 16, 1920 ]" met at the request (clamped, even) when possible.
    private static func integers(_ values: [String], requested: Int) -> [Int] {
        values.compactMap { v -> Int? in
            if let i = Int(v.trimmed) { return i }
            let bounds = rangeBounds(v).compactMap { Int($0) }
            guard bounds.count >= 2 else { return nil }
            return min(max(requested, bounds[0]), bounds[1])
        }
    }

    /// "30/1", or a range "[ 1/1, 60/1 ]" met at the request when it lies inside.
    private static func rates(_ value: String, requested: FrameRate) -> [FrameRate] {
        if let r = FrameRate(parsing: value), !value.contains("[") { return [r] }
        let bounds = rangeBounds(value).compactMap { FrameRate(parsing: $0) }
        guard bounds.count >= 2 else { return [] }
        if requested.perSecond < bounds[0].perSecond { return [bounds[0]] }
        if requested.perSecond > bounds[1].perSecond { return [bounds[1]] }
        return [requested]
    }

    private static func rangeBounds(_ text: String) -> [String] {
        guard text.hasPrefix("[") else { return [] }
        return text.dropFirst().dropLast().split(separator: ",").map {
            $0.trimmed
        }
    }
}
