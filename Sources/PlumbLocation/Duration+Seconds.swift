extension Duration {
    /// The duration in seconds, as a Double (the engine has its own, in RecordingOutput.swift).
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
