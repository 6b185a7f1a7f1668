import PlumbBase
import Plumb

extension ServeConfig {
    /// `[motion]`: motion detection (`MotionOutput`), reported as `motion` events and in
    /// `GET /status`, and (with `event`) an event clip for each stretch of motion.
    public struct Motion: Sendable, Equatable {
        /// `enabled`: watch the camera's frames for motion; default false.
        public var enabled = false
        /// `rate`: frames analysed per second; default 5.
        public var rate = 5
        /// `sensitivity`: 0 to 1, higher finds fainter changes; default 0.5.
        public var sensitivity = 0.5
        /// `min-area`: the changed part of the picture a frame needs to count; default 0.005.
        public var minArea = 0.005
        /// `min-frames`: consecutive motion frames before motion starts; default 2.
        public var minFrames = 2
        /// `quiet-seconds`: seconds without a motion frame before motion ends; default 2.
        public var quietSeconds = 2.0
        /// `mask`: rectangles of the upright picture ignored; default none.
        public var mask: [NormalizedRect] = []
        /// `event`: motion starts (and extends) an event clip, as `POST /event` does; default true.
        public var event = true
        public init() {}

        /// The engine's options.
        public var options: MotionOptions {
            MotionOptions(rate: rate, sensitivity: sensitivity, minArea: minArea, minFrames: minFrames,
                          quietSeconds: quietSeconds, masks: mask)
        }
    }

    /// The keys of `[motion]`, in file order.
    static let motionKeys: [ConfigKey] = [
        ConfigKey(group: "motion", name: "enabled",
                  accepted: "true or false",
                  documentation: "Watch the frames for motion (a tee branch of its own, scaled to 160 pixels wide, behind a\nleaky queue): `motion` events on /events, `motion` in GET /status.",
                  \.motion.enabled, parse: parseBool, render: { "\($0)" }),
        ConfigKey(group: "motion", name: "rate",
                  accepted: "a whole number of frames per second from 1 to 30",
                  documentation: "Frames analysed per second (the others are not looked at).",
                  \.motion.rate, parse: { parseInt($0, in: 1...30) }, render: { "\($0)" }),
        ConfigKey(group: "motion", name: "sensitivity",
                  accepted: "a number from 0 to 1",
                  documentation: "0 to 1: higher counts fainter changes as motion (a pixel counts as changed when its grey\nlevel moves more than 60 at 0, 10 at 1, from the learned background).",
                  \.motion.sensitivity, parse: { parseDouble($0, in: 0...1) }, render: renderNumber),
        ConfigKey(group: "motion", name: "min-area",
                  accepted: "a number above 0 and below 0.5 (the part of the picture)",
                  documentation: "The part of the picture (0 to 1) that must change in a frame for it to count as motion;\nraise it to ignore small things (leaves, insects).",
                  \.motion.minArea, parse: { parseDouble($0, in: 0...0.5).flatMap { $0 > 0 && $0 < 0.5 ? $0 : nil } },
                  render: renderNumber),
        ConfigKey(group: "motion", name: "min-frames",
                  accepted: "a whole number of frames from 1 to 100",
                  documentation: "Consecutive motion frames (at rate) before motion starts.",
                  \.motion.minFrames, parse: { parseInt($0, in: 1...100) }, render: { "\($0)" }),
        ConfigKey(group: "motion", name: "quiet-seconds",
                  accepted: "a number of seconds from 0 to 3600",
                  documentation: "Seconds without a motion frame before motion ends.",
                  \.motion.quietSeconds, parse: { parseDouble($0, in: 0...3600) }, render: renderNumber),
        ConfigKey(group: "motion", name: "mask",
                  accepted: "rectangles x,y,width,height in 0 to 1, separated by ;, e.g. 0,0,1,0.1;0.8,0.8,0.2,0.2, or nothing for none",
                  documentation: "Parts of the upright picture ignored (a clock, a road, a tree), normalised\nx,y,width,height, separated by ;. Empty ignores nothing.",
                  \.motion.mask, parse: parseMasks, render: renderMasks),
        ConfigKey(group: "motion", name: "event",
                  accepted: "true or false",
                  documentation: "Motion starts an event clip ([events] pre- and post-seconds, as POST /event), and\ncontinued motion extends it.",
                  \.motion.event, parse: parseBool, render: { "\($0)" }),
    ]
}

/// 0.5 stays 0.5; 2 rather than 2.0.
private func renderNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}

/// `x,y,w,h;x,y,w,h`; empty is none.
private func parseMasks(_ text: String) -> [NormalizedRect]? {
    let items = text.split(separator: ";").map { $0.trimmed }.filter { !$0.isEmpty }
    var masks: [NormalizedRect] = []
    for item in items {
        guard let rect = try? NormalizedRect.parse(item) else { return nil }
        masks.append(rect)
    }
    return masks
}

func renderMasks(_ masks: [NormalizedRect]) -> String {
    masks.map { r in [r.x, r.y, r.width, r.height].map(renderNumber).joined(separator: ",") }.joined(separator: ";")
}
