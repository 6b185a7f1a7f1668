extension StringProtocol {
    /// Without the white space (spaces, tabs, line ends) at either end: Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, which FoundationEssentials lacks.
    public var trimmed: String { trimming { $0.isWhitespace } }

    /// Without the characters of `characters` at either end.
    public func trimming(_ characters: String) -> String { trimming { characters.contains($0) } }

    private func trimming(where strip: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !strip($0) }) else { return "" }
        let last = lastIndex(where: { !strip($0) })!
        return String(self[first...last])
    }
}
