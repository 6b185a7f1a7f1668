import Glibc

extension String {
    /// `format` filled in by C's vsnprintf, as Foundation's `String(format:)` fills numbers
    /// in (FoundationEssentials has no such initializer; issue 26). Numbers only: no `%@`;
    /// the C locale's decimal point, as no one here calls setlocale.
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        self.init(cFormat: format, arguments: arguments)
    }

    public init(cFormat format: String, arguments: [any CVarArg]) {
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 256)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else { return String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self) }
            // Longer than the buffer: once more with room for it.
            return withVaList(arguments) { again in
                var big = [CChar](repeating: 0, count: needed + 1)
                _ = vsnprintf(&big, big.count, format, again)
                return String(decoding: big.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
            }
        }
    }
}
