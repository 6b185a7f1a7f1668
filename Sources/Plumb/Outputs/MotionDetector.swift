import PlumbRotation

/// Motion in a stream of small grey frames, without GStreamer (a `MotionOutput` feeds it):
/// each frame is compared with a slowly adapting background. A pixel has changed when it
/// differs from the background by more than `MotionOptions.threshold`; specks smaller than
/// 3x3 pixels are removed (a 3x3 opening: erosion, then dilation back to the shapes left);
/// what remains, as a fraction of the picture, makes a motion frame when it reaches
/// `minArea`. Motion starts after `minFrames` motion frames in a row and ends after
/// `quietSeconds` without one. A change over `lightingFraction` of the picture at once, or a
/// change of the whole picture's brightness by 15 % or more that explains most changed pixels,
/// is a lighting change: not motion, and the background becomes the new frame.
///
/// Masks are rectangles of the upright picture; frames come as the sensor gives them, so
/// masks are turned into the frame by the capture angle and boxes turned back by it.
public struct MotionDetector: Sendable {
    public enum State: String, Sendable { case quiet, moving }
    public enum Change: String, Sendable { case started, ended }

    /// What one frame showed.
    public struct Result: Sendable, Hashable {
        /// Motion started or ended with this frame.
        public var change: Change?
        /// The frame was a lighting change (the background re-learnt from it).
        public var lighting: Bool
        /// The changed part of the picture, specks removed (for a lighting change: before removal).
        public var fraction: Double
        /// The changed regions, largest first (at most `maxBoxes`), normalised in the upright picture.
        public var boxes: [NormalizedRect]
    }

    public static let maxBoxes = 8
    /// Changed pixels this far apart (or closer) belong to one region: an object is not cut into
    /// boxes by a row or column of its pixels that happen to match the background's grey (a
    /// grid line of the scene behind it, a stripe of its own).
    static let regionReach = 2
    /// How fast the background follows the scene per analysis frame, where nothing changed and where
    /// something did (slowly: something that stays, a parked car, becomes background in time).
    static let learning: Float = 0.05
    static let learningWhereChanged: Float = 0.005

    public private(set) var options: MotionOptions
    public private(set) var state = State.quiet
    /// Frames analysed since the background was (re)started.
    public private(set) var frames = 0

    private var width = 0
    private var height = 0
    private var background: [Float] = []
    private var maskAngle: RotationAngle?
    /// 1 where a mask hides the frame's pixel.
    private var ignored: [UInt8] = []
    private var ignoredCount = 0
    private var changed: [UInt8] = []
    private var scratch: [UInt8] = []
    private var stack: [Int32] = []
    private var run = 0
    private var lastMotion = 0.0

    public init(options: MotionOptions) {
        self.options = options
    }

    /// New masks (rectangles of the upright picture), from the next frame on; the learnt
    /// background is kept.
    public mutating func setMasks(_ masks: [NormalizedRect]) {
        options.masks = masks
        maskAngle = nil
    }

    /// One tightly packed frame (`width * height` bytes).
    public mutating func analyze(_ pixels: [UInt8], width: Int, height: Int, time: Double,
                                 angle: RotationAngle = .degrees0) -> Result {
        pixels.withUnsafeBytes { analyze($0, width: width, height: height, stride: width, time: time, angle: angle) }
    }

    /// One GRAY8 frame with rows `stride` bytes apart, at `time` seconds (any steady clock),
    /// taken at the capture `angle` (the frame turned clockwise by it is upright).
    public mutating func analyze(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int, time: Double,
                                 angle: RotationAngle = .degrees0) -> Result {
        precondition(width > 0 && height > 0 && stride >= width && pixels.count >= stride * (height - 1) + width)
        if width != self.width || height != self.height || background.isEmpty {
            restart(pixels, width: width, height: height, stride: stride)
            return Result(change: nil, lighting: false, fraction: 0, boxes: [])
        }
        if maskAngle != angle { makeMask(angle: angle) }
        frames += 1
        let count = width * height
        let threshold = Float(options.threshold)
        // Pixels changed beyond the threshold.
        var raw = 0
        var frameSum: Float = 0, backgroundSum: Float = 0
        background.withUnsafeBufferPointer { bg in
            ignored.withUnsafeBufferPointer { ig in
                changed.withUnsafeMutableBufferPointer { ch in
                    for y in 0..<height {
                        let row = y * width, src = y * stride
                        var rowSum: Float = 0, rowBackground: Float = 0
                        for x in 0..<width {
                            let i = row + x
                            let f = Float(pixels[src + x])
                            let d = abs(f - bg[i])
                            let c: UInt8 = (d > threshold && ig[i] == 0) ? 1 : 0
                            ch[i] = c
                            raw += Int(c)
                            rowSum += f
                            rowBackground += bg[i]
                        }
                        frameSum += rowSum
                        backgroundSum += rowBackground
                    }
                }
            }
        }
        let considered = max(count - ignoredCount, 1)
        if Double(raw) >= options.lightingFraction * Double(considered)
            || isGainChange(pixels, stride: stride, gain: frameSum / max(backgroundSum, 1), changed: raw) {
            restart(pixels, width: width, height: height, stride: stride)
            run = 0
            return Result(change: quietEnds(at: time), lighting: true, fraction: Double(raw) / Double(count), boxes: [])
        }
        open()
        let (area, boxes) = regions(angle: angle)
        learn(pixels, stride: stride)
        let fraction = Double(area) / Double(count)
        let moving = fraction >= options.minArea
        var change: Change?
        if moving {
            run += 1
            lastMotion = time
            if state == .quiet && run >= options.minFrames {
                state = .moving
                change = .started
            }
        } else {
            run = 0
            change = quietEnds(at: time)
        }
        return Result(change: change, lighting: false, fraction: fraction, boxes: boxes)
    }

    /// Whether the picture as a whole got brighter or darker by `gain` (15 % or more) and that
    /// explains most of the changed pixels: a dark scene lit up changes little in its darkest
    /// parts, so this finds a lighting change the changed fraction alone would miss.
    private func isGainChange(_ pixels: UnsafeRawBufferPointer, stride: Int, gain: Float, changed raw: Int) -> Bool {
        guard abs(gain - 1) >= 0.15, raw > 0 else { return false }
        let threshold = Float(options.threshold)
        var left = 0
        background.withUnsafeBufferPointer { bg in
            ignored.withUnsafeBufferPointer { ig in
                for y in 0..<height {
                    for x in 0..<width where ig[y * width + x] == 0 {
                        if abs(Float(pixels[y * stride + x]) - gain * bg[y * width + x]) > threshold { left += 1 }
                    }
                }
            }
        }
        return left * 4 < raw
    }

    /// Ends motion when it has been quiet long enough.
    private mutating func quietEnds(at time: Double) -> Change? {
        guard state == .moving, time - lastMotion >= options.quietSeconds else { return nil }
        state = .quiet
        return .ended
    }

    /// The background becomes this frame.
    private mutating func restart(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) {
        if width != self.width || height != self.height {
            self.width = width
            self.height = height
            changed = [UInt8](repeating: 0, count: width * height)
            scratch = changed
            maskAngle = nil
        }
        background = [Float](repeating: 0, count: width * height)
        background.withUnsafeMutableBufferPointer { bg in
            for y in 0..<height {
                for x in 0..<width { bg[y * width + x] = Float(pixels[y * stride + x]) }
            }
        }
        frames = 0
    }

    /// The masks (upright) in the frame's own coordinates: turned back by the capture angle.
    private mutating func makeMask(angle: RotationAngle) {
        maskAngle = angle
        ignored = [UInt8](repeating: 0, count: width * height)
        for mask in options.masks {
            let r = mask.turned(clockwise: angle.inverse)
            let x0 = max(0, Int((r.x * Double(width)).rounded(.down)))
            let x1 = min(width, Int(((r.x + r.width) * Double(width)).rounded(.up)))
            let y0 = max(0, Int((r.y * Double(height)).rounded(.down)))
            let y1 = min(height, Int(((r.y + r.height) * Double(height)).rounded(.up)))
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 { for x in x0..<x1 { ignored[y * width + x] = 1 } }
        }
        ignoredCount = ignored.reduce(0) { $0 + Int($1) }
    }

    /// A 3x3 opening of `changed`: specks narrower than 3 pixels go, larger shapes stay.
    private mutating func open() {
        let w = width, h = height
        changed.withUnsafeMutableBufferPointer { ch in
            scratch.withUnsafeMutableBufferPointer { tmp in
                // Erosion, by rows then by columns (the frame's edge counts as unchanged).
                for y in 0..<h {
                    let r = y * w
                    tmp[r] = 0
                    tmp[r + w - 1] = 0
                    if w > 2 { for x in 1..<(w - 1) { tmp[r + x] = ch[r + x - 1] & ch[r + x] & ch[r + x + 1] } }
                }
                for x in 0..<w { ch[x] = 0; ch[(h - 1) * w + x] = 0 }
                if h > 2 { for i in w..<((h - 1) * w) { ch[i] = tmp[i - w] & tmp[i] & tmp[i + w] } }
                // Dilation back, the same way.
                for y in 0..<h {
                    let r = y * w
                    for x in 0..<w {
                        var v = ch[r + x]
                        if x > 0 { v |= ch[r + x - 1] }
                        if x < w - 1 { v |= ch[r + x + 1] }
                        tmp[r + x] = v
                    }
                }
                for i in 0..<(w * h) {
                    var v = tmp[i]
                    if i >= w { v |= tmp[i - w] }
                    if i < (h - 1) * w { v |= tmp[i + w] }
                    ch[i] = v
                }
            }
        }
    }

    /// The changed area in pixels and the boxes of its regions (changed pixels at most
    /// `regionReach` apart in each direction are one region), normalised and turned upright by
    /// `angle`. Leaves `changed` as 0/1 (labels undone).
    private mutating func regions(angle: RotationAngle) -> (Int, [NormalizedRect]) {
        let w = width, h = height, reach = Self.regionReach
        var area = 0
        var found: [(area: Int, x0: Int, y0: Int, x1: Int, y1: Int)] = []
        changed.withUnsafeMutableBufferPointer { ch in
            for start in 0..<(w * h) where ch[start] == 1 {
                var n = 0, x0 = w, y0 = h, x1 = 0, y1 = 0
                ch[start] = 2
                stack.append(Int32(start))
                while let top = stack.popLast() {
                    let i = Int(top), x = i % w, y = i / w
                    n += 1
                    x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                    for ny in max(0, y - reach)...min(h - 1, y + reach) {
                        let row = ny * w
                        for nx in max(0, x - reach)...min(w - 1, x + reach) where ch[row + nx] == 1 {
                            ch[row + nx] = 2
                            stack.append(Int32(row + nx))
                        }
                    }
                }
                area += n
                found.append((n, x0, y0, x1, y1))
            }
            for i in 0..<(w * h) where ch[i] == 2 { ch[i] = 1 }
        }
        let boxes = found.sorted { $0.area > $1.area }.prefix(Self.maxBoxes).map { b in
            NormalizedRect(x: Double(b.x0) / Double(w), y: Double(b.y0) / Double(h),
                           width: Double(b.x1 + 1 - b.x0) / Double(w), height: Double(b.y1 + 1 - b.y0) / Double(h))
                .turned(clockwise: angle)
        }
        return (area, boxes)
    }

    /// The background follows the frame: quickly where nothing changed, slowly where something did.
    private mutating func learn(_ pixels: UnsafeRawBufferPointer, stride: Int) {
        let w = width, h = height
        let fast = Self.learning, slow = Self.learningWhereChanged
        changed.withUnsafeBufferPointer { ch in
            background.withUnsafeMutableBufferPointer { bg in
                for y in 0..<h {
                    for x in 0..<w {
                        let i = y * w + x
                        let a = ch[i] == 0 ? fast : slow
                        bg[i] += a * (Float(pixels[y * stride + x]) - bg[i])
                    }
                }
            }
        }
    }
}
