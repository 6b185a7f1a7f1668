import Plumb

extension ServeConfig {
    /// `[scan]`: barcode and QR scanning (`ScanOutput`), reported as `barcode` events and in `GET /scans`.
    public struct Scan: Sendable, Equatable {
        /// `enabled`: scan the camera's frames; default false.
        public var enabled = false
        /// `types`: the symbologies read; default qr,ean13,ean8,upca,upce,code128,code39.
        public var types = Symbology.defaults
        /// `region`: the part of the upright picture scanned, x,y,width,height in 0...1; default all of it.
        public var region = NormalizedRect.full
        /// `rate`: frames scanned per second; default 10.
        public var rate = 10
        /// `width`: the width frames are scaled to before decoding; default 640.
        public var width = 640
        /// `forget-seconds`: how long a code must be out of view to be reported again; default 1.
        public var forgetSeconds = 1.0
        /// `photo`: save a still with each detection into the recordings folder; default false.
        public var photo = false
        public init() {}

        /// The engine's options.
        public var options: ScanOptions {
            ScanOptions(types: types, region: region, rate: rate, width: width,
                        forgetAfter: .milliseconds(Int((forgetSeconds * 1000).rounded())))
        }
    }

    /// The keys of `[scan]`, in file order.
    static let scanKeys: [ConfigKey] = [
        ConfigKey(group: "scan", name: "enabled",
                  accepted: "true or false",
                  documentation: "Read barcodes and QR codes from the frames (a tee branch of its own at a reduced\nrate and size, behind a leaky queue): `barcode` events on /events, GET /scans.",
                  \.scan.enabled, parse: parseBool, render: { "\($0)" }),
        ConfigKey(group: "scan", name: "types",
                  accepted: "symbologies, comma-separated, from " + Symbology.allCases.map(\.rawValue).joined(separator: ", "),
                  documentation: "The symbologies read, comma-separated: qr, ean13, ean8, upca, upce, code128, code39,\ncode93, i25, codabar, pdf417, databar, isbn10, isbn13.",
                  \.scan.types, parse: { try? Symbology.parseList($0) }, render: renderTypes),
        ConfigKey(group: "scan", name: "region",
                  accepted: "x,y,width,height in 0 to 1, inside the picture, e.g. 0.25,0.25,0.5,0.5",
                  documentation: "The part of the upright picture scanned, normalised: x,y,width,height (0,0 is the\ntop left as a viewer sees it, whatever the device's rotation).",
                  \.scan.region, parse: { try? NormalizedRect.parse($0) }, render: renderRegion),
        ConfigKey(group: "scan", name: "rate",
                  accepted: "a whole number of frames per second from 1 to 60",
                  documentation: "Frames scanned per second (the others are not decoded).",
                  \.scan.rate, parse: { parseInt($0, in: 1...60) }, render: { "\($0)" }),
        ConfigKey(group: "scan", name: "width",
                  accepted: "a whole number of pixels from 64 to 4096",
                  documentation: "The width frames are scaled to before decoding (height in proportion; never\nlarger than the camera's): smaller is cheaper, larger reads smaller codes.",
                  \.scan.width, parse: { parseInt($0, in: 64...4096) }, render: { "\($0)" }),
        ConfigKey(group: "scan", name: "forget-seconds",
                  accepted: "a number of seconds from 0 to 3600",
                  documentation: "A code that stays in view is one detection; it is reported again once it has been\nout of view for longer than this.",
                  \.scan.forgetSeconds, parse: { parseDouble($0, in: 0...3600) },
                  render: { $0 == $0.rounded() ? String(Int($0)) : String($0) }),
        ConfigKey(group: "scan", name: "photo",
                  accepted: "true or false",
                  documentation: "Save a still into the recordings folder with each detection; its file is in the\nbarcode event and in GET /scans.",
                  \.scan.photo, parse: parseBool, render: { "\($0)" }),
    ]
}

private func renderTypes(_ types: Set<Symbology>) -> String {
    Symbology.allCases.filter(types.contains).map(\.rawValue).joined(separator: ",")
}

/// 0 rather than 0.0; 0.25 stays 0.25.
private func renderRegion(_ r: NormalizedRect) -> String {
    [r.x, r.y, r.width, r.height].map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ",")
}
