internal import CGStreamer
internal import CGStreamerShim
import GLib

/// Connects Swift closures to GObject signals through the shim's trampolines.
/// Handlers run on whichever thread emits the signal; they must only hand off.
package enum Signal {
    package typealias PointerHandler = @Sendable (_ instance: UnsafeMutableRawPointer, _ argument: UnsafeMutableRawPointer?) -> Void
    package typealias VoidHandler = @Sendable (_ instance: UnsafeMutableRawPointer) -> Void

    /// A signal with one pointer argument ("client-connected", "media-configure", "pad-added" ...).
    @discardableResult
    package static func connect(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping PointerHandler) -> UInt {
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        return UInt(plumb_signal_connect_pointer(instance, name, { instance, argument, userData in
            guard let instance, let userData else { return }
            Unmanaged<Box<PointerHandler>>.fromOpaque(userData).takeUnretainedValue().value(instance, argument)
        }, box, { userData in
            if let userData { Unmanaged<Box<PointerHandler>>.fromOpaque(userData).release() }
        }))
    }

    /// A signal with no argument ("closed", "unprepared").
    @discardableResult
    package static func connect(_ instance: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping VoidHandler) -> UInt {
        let box = Unmanaged.passRetained(Box(handler)).toOpaque()
        return UInt(plumb_signal_connect_void(instance, name, { instance, userData in
            guard let instance, let userData else { return }
            Unmanaged<Box<VoidHandler>>.fromOpaque(userData).takeUnretainedValue().value(instance)
        }, box, { userData in
            if let userData { Unmanaged<Box<VoidHandler>>.fromOpaque(userData).release() }
        }))
    }

    package static func disconnect(_ instance: UnsafeMutableRawPointer, _ id: UInt) {
        g_signal_handler_disconnect(cast(instance) as UnsafeMutablePointer<GObject>, gulong(id))
    }
}
