extension GStreamerError {
    /// GST_RESOURCE_ERROR_NO_SPACE_LEFT: a sink's disk is full ("No space left on the
    /// resource", which names neither the disk nor the file).
    public var isNoSpaceLeft: Bool { domain == Self.resourceDomain && code == 14 }
}
