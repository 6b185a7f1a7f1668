import Dispatch
import FoundationEssentials
import Glibc

/// Turns the stop signals into calls on a Dispatch queue instead of killing the process.
///
/// The signals come from `SignalInbox` (caught from the program's first instruction): those
/// that came before the watch are handed over first, synchronously, in `init`; later ones as
/// they come. One watch at a time (the inbox has one reader); after `cancel()` a signal is
/// caught and dropped.
/// `@unchecked Sendable`: the Dispatch source is thread-safe and never replaced.
package final class SignalWatch: @unchecked Sendable {
    private let source: (any DispatchSourceRead)?

    package init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let deliver: @Sendable ([Int32]) -> Void = { numbers in
            for number in numbers where signals.contains(number) { handler(number) }
        }
        deliver(SignalInbox.take())
        guard SignalInbox.descriptor >= 0 else {
            source = nil
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: SignalInbox.descriptor, queue: .global())
        source.setEventHandler { deliver(SignalInbox.take()) }
        source.resume()
        self.source = source
    }

    package func cancel() {
        source?.cancel()
    }
}
