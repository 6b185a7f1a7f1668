// Sizes and ages as the config file writes them: `500M`, `2G`, `90s`, `7d`. Shared by every
// key that takes one (retention, the event ring), so they all accept the same spellings.

/// A size in bytes: a number with an optional `K`, `M`, `G` or `T` (powers of 1024; a
/// trailing `B` or `iB` is allowed: `500MiB`), e.g. `4096`, `500M`, `1.5G`. Whole bytes
/// result; nil for anything else, a negative number, or more than `Int64` holds.
func parseByteCount(_ text: String) -> Int64? {
    var body = Substring(text.uppercased())
    if body.hasSuffix("IB") { body = body.dropLast(2) } else if body.hasSuffix("B") { body = body.dropLast() }
    var scale: Double = 1
    if let unit = body.last, let power = "KMGT".firstIndex(of: unit) {
        scale = pow1024("KMGT".distance(from: "KMGT".startIndex, to: power) + 1)
        body = body.dropLast()
    } else if text.uppercased().hasSuffix("IB") {
        return nil  // "iB" needs a unit before it
    }
    guard let number = plainNumber(body) else { return nil }
    let bytes = (number * scale).rounded()
    guard bytes < 9.2e18 else { return nil }
    return Int64(bytes)
}

/// A size written back in the largest unit that keeps it exact (`512M`, `1536K`, `7`).
func renderByteCount(_ bytes: Int64) -> String {
    for (i, unit) in ["T", "G", "M", "K"].enumerated() {
        let scale = Int64(pow1024(4 - i))
        if bytes != 0, bytes % scale == 0 { return "\(bytes / scale)\(unit)" }
    }
    return "\(bytes)"
}

/// A length of time: a number with `s`, `m`, `h` or `d` (a bare number is seconds), e.g.
/// `90s`, `12h`, `7d`, `1.5h`. Nil for anything else or a negative number.
func parseAge(_ text: String) -> Duration? {
    var body = Substring(text.lowercased())
    var scale: Double = 1
    if let unit = body.last, let factor = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][unit] {
        scale = factor
        body = body.dropLast()
    }
    guard let number = plainNumber(body) else { return nil }
    let seconds = number * scale
    guard seconds < 1e12 else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
}

/// An age written back in the largest unit that keeps it exact (`7d`, `90m`, `45s`).
func renderAge(_ age: Duration) -> String {
    let ms = age.components.seconds * 1000 + age.components.attoseconds / 1_000_000_000_000_000
    guard ms % 1000 == 0 else { return "\(Double(ms) / 1000)s" }
    let s = ms / 1000
    for (unit, factor) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where s != 0 && s % factor == 0 {
        return "\(s / factor)\(unit)"
    }
    return "\(s)s"
}

/// A plain non-negative decimal: digits with at most one point, nothing else.
private func plainNumber(_ text: Substring) -> Double? {
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
          text.filter({ $0 == "." }).count <= 1, text != ".", let v = Double(text), v.isFinite, v >= 0 else { return nil }
    return v
}

private func pow1024(_ n: Int) -> Double { (0..<n).reduce(1.0) { r, _ in r * 1024 } }
