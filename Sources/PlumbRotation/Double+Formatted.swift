extension Double {
    /// "30" or "29.97": readings and rates in messages, with at most two decimals.
    package var formatted2: String {
        self == rounded() ? String(Int(self)) : String((self * 100).rounded() / 100)
    }
}
