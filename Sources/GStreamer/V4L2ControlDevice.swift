import FoundationEssentials
import Glibc
internal import CGStreamerShim

/// A V4L2 node opened for its controls: listed (VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYMENU),
/// read (VIDIOC_G_EXT_CTRLS) and set as one batch the driver checks whole first
/// (VIDIOC_TRY_EXT_CTRLS, then VIDIOC_S_EXT_CTRLS). Controls can be used by another open
/// of the node while GStreamer streams from it.
public final class V4L2ControlDevice: @unchecked Sendable {
    public let path: String
    private let fd: Int32

    /// Opens `path`; throws the errno as a V4L2ControlError when it cannot.
    public init(path: String) throws(V4L2ControlError) {
        self.path = path
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2ControlError(request: "open \(path)", errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Every control the driver lists, class headings included, in its order.
    public func controls() throws(V4L2ControlError) -> [V4L2ControlInfo] {
        let next: UInt32 = 0x8000_0000 | 0x4000_0000 // V4L2_CTRL_FLAG_NEXT_CTRL | NEXT_COMPOUND
        var list: [V4L2ControlInfo] = []
        var query = v4l2_query_ext_ctrl()
        query.id = next
        while true {
            let result = plumb_ioctl(fd, plumb_vidioc_query_ext_ctrl, &query)
            if result == -EINVAL { break } // past the last one
            guard result == 0 else { throw V4L2ControlError(request: "VIDIOC_QUERY_EXT_CTRL", errno: -result) }
            let kind = V4L2ControlInfo.Kind(rawValue: query.type)
            var info = V4L2ControlInfo(
                id: query.id, label: Self.string(&query.name), kind: kind, minimum: query.minimum,
                maximum: query.maximum, step: query.step, defaultValue: query.default_value,
                flags: V4L2ControlFlags(rawValue: query.flags), elements: query.elems)
            if kind == .menu || kind == .integerMenu { info.menu = menu(of: info) }
            list.append(info)
            let last = query.id
            query = v4l2_query_ext_ctrl()
            query.id = last | next
        }
        return list
    }

    private func menu(of info: V4L2ControlInfo) -> [V4L2MenuEntry] {
        guard info.minimum >= 0, info.maximum >= info.minimum, info.maximum - info.minimum < 4096 else { return [] }
        var entries: [V4L2MenuEntry] = []
        for index in info.minimum...info.maximum {
            var item = v4l2_querymenu()
            item.id = info.id
            item.index = UInt32(index)
            // Drivers leave out indices they do not offer (EINVAL): skip them, as v4l2-ctl does.
            guard plumb_ioctl(fd, plumb_vidioc_querymenu, &item) == 0 else { continue }
            if info.kind == .integerMenu {
                entries.append(V4L2MenuEntry(index: index, value: item.value))
            } else {
                entries.append(V4L2MenuEntry(index: index, name: Self.string(&item.name)))
            }
        }
        return entries
    }

    /// The current values of `controls` that have one (write-only buttons and class headings
    /// are left out). Read as one batch; when the driver refuses it, control by control, so
    /// that one unreadable control costs only its own value.
    public func values(of controls: [V4L2ControlInfo]) -> [UInt32: V4L2ControlValue] {
        let readable = controls.filter { $0.isReadable && $0.elements <= 1 && !$0.flags.contains(.disabled) }
        if let all = try? get(readable) { return all }
        var values: [UInt32: V4L2ControlValue] = [:]
        for control in readable { if let one = try? get([control]) { values.merge(one) { a, _ in a } } }
        return values
    }

    /// VIDIOC_G_EXT_CTRLS for `controls`.
    public func get(_ controls: [V4L2ControlInfo]) throws(V4L2ControlError) -> [UInt32: V4L2ControlValue] {
        let batch = Batch(controls.map { ($0, nil) })
        defer { batch.free() }
        try run(plumb_vidioc_g_ext_ctrls, "VIDIOC_G_EXT_CTRLS", batch, controls)
        var values: [UInt32: V4L2ControlValue] = [:]
        for (i, control) in controls.enumerated() { values[control.id] = batch.value(at: i, kind: control.kind) }
        return values
    }

    /// Sets `changes` all or none: VIDIOC_TRY_EXT_CTRLS checks the whole batch first, so
    /// a value the driver refuses leaves the others unapplied; VIDIOC_S_EXT_CTRLS then sets
    /// them in one call (the driver itself does not half-apply a batch it refuses in its
    /// checks; a failure while writing to hardware is reported with the control it names).
    public func set(_ changes: [(V4L2ControlInfo, V4L2ControlValue)]) throws(V4L2ControlError) {
        guard !changes.isEmpty else { return }
        let controls = changes.map(\.0)
        let tried = Batch(changes.map { ($0.0, $0.1) })
        defer { tried.free() }
        try run(plumb_vidioc_try_ext_ctrls, "VIDIOC_TRY_EXT_CTRLS", tried, controls)
        let batch = Batch(changes.map { ($0.0, $0.1) })
        defer { batch.free() }
        try run(plumb_vidioc_s_ext_ctrls, "VIDIOC_S_EXT_CTRLS", batch, controls)
    }

    private func run(_ request: UInt, _ name: String, _ batch: Batch, _ controls: [V4L2ControlInfo]) throws(V4L2ControlError) {
        var header = v4l2_ext_controls()
        header.which = 0 // V4L2_CTRL_WHICH_CUR_VAL: any class in one batch
        header.count = UInt32(controls.count)
        header.controls = batch.items
        let result = plumb_ioctl(fd, request, &header)
        guard result != 0 else { return }
        // error_idx == count: the batch as a whole (or before any control was looked at).
        let index = Int(header.error_idx)
        let blamed = index < controls.count ? controls[index].name : nil
        throw V4L2ControlError(request: name, errno: -result, control: blamed)
    }

    /// The v4l2_ext_control array of one request, with the buffers of its string controls.
    private final class Batch {
        let items: UnsafeMutablePointer<v4l2_ext_control>
        let count: Int
        private var buffers: [UnsafeMutablePointer<CChar>] = []

        init(_ entries: [(V4L2ControlInfo, V4L2ControlValue?)]) {
            count = entries.count
            items = .allocate(capacity: max(1, count))
            for (i, (control, value)) in entries.enumerated() {
                var item = v4l2_ext_control()
                item.id = control.id
                switch control.kind {
                case .string:
                    let capacity = Int(max(0, control.maximum)) + 1
                    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
                    buffer.initialize(repeating: 0, count: capacity)
                    if case .string(let text)? = value {
                        for (j, byte) in text.utf8.prefix(capacity - 1).enumerated() { buffer[j] = CChar(bitPattern: byte) }
                    }
                    buffers.append(buffer)
                    item.size = UInt32(capacity)
                    item.string = buffer
                case .integer64:
                    item.value64 = value?.integer ?? 0
                default:
                    // 32-bit values; bitmasks are unsigned, carried in the same bits.
                    item.value = Int32(truncatingIfNeeded: value?.integer ?? 0)
                }
                (items + i).initialize(to: item)
            }
        }

        func value(at i: Int, kind: V4L2ControlInfo.Kind) -> V4L2ControlValue {
            let item = items[i]
            switch kind {
            case .string: return .string(item.string.map { String(cString: $0) } ?? "")
            case .integer64: return .integer(item.value64)
            case .bitmask: return .integer(Int64(UInt32(bitPattern: item.value)))
            default: return .integer(Int64(item.value))
            }
        }

        func free() {
            items.deallocate()
            buffers.forEach { $0.deallocate() }
        }
    }

    /// A fixed char array of a V4L2 struct (name[32]) as a String, NUL or not.
    private static func string<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
