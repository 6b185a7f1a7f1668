import GStreamer

/// A camera control as the driver lists it (`CameraControls.controls`), and its value
/// (`CameraControls.values()`): the V4L2 layer's types under the engine's names, so that
/// the command line lists controls without importing GStreamer (LayerTests).
public typealias CameraControlInfo = V4L2ControlInfo
public typealias CameraControlValue = V4L2ControlValue
