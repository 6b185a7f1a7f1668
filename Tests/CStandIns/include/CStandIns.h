#ifndef PLUMB_CSTANDINS_H
#define PLUMB_CSTANDINS_H

#include <gst/gst.h>

/// Which hardware element's interface a stand-in presents.
typedef enum {
  /// A V4L2 memory-to-memory codec (v4l2h264enc, v4l2jpegdec): `device`, `extra-controls`.
  PLUMB_STAND_IN_V4L2 = 0,
  /// A VA encoder (vah264enc): `bitrate`, `key-int-max`, `target-usage`, `b-frames`, `ref-frames`.
  PLUMB_STAND_IN_VA = 1,
} PlumbStandInKind;

/// Registers, in this process only, an element factory `name` (a GstBin subclass) that wraps
/// `inner` (x264enc, x265enc) behind the hardware element's interface and limits: its
/// properties, sink caps `sink_caps` ("video/x-raw,format=NV12"), width and height multiples
/// of `alignment`, and a failure at start (NULL->READY) when its `fail-start` property is set
/// or the environment variable PLUMB_STAND_IN_FAIL lists `name` (comma-separated).
/// FALSE when `name` is registered already (by a real plugin or an earlier call).
gboolean plumb_stand_in_register(const gchar *name, const gchar *inner, PlumbStandInKind kind,
                                 const gchar *sink_caps, guint alignment);

/// Sets the `device` that new instances of the stand-in `name` start with (a path the test
/// made, or one that does not exist, to show "device node missing").
void plumb_stand_in_set_device(const gchar *name, const gchar *device);

/// Registers, in this process only, `libcamerasrc` (a live videotestsrc behind libcamerasrc's
/// `camera-name` property and its "Could not find a camera" failure) and a device provider
/// that lists the cameras named by plumb_stand_in_set_libcameras, as libcamera's provider
/// lists the cameras libcamera sees. FALSE when a real libcamerasrc is installed.
gboolean plumb_stand_in_register_libcamera(void);

/// The cameras "connected" to the libcamera stand-in, e.g. {"/base/soc/i2c0mux/i2c@1/imx708@1a"};
/// NULL-terminated; NULL or empty for none.
void plumb_stand_in_set_libcameras(const gchar *const *names);

/// Registers, in this process only, the elements GStreamer's own parse-launch test registers
/// for its launch strings: "1__dentity" (identity) and "parsetestelement" (a bin whose
/// sometimes pad "src" appears on READY->PAUSED). FALSE if either could not be registered.
gboolean plumb_stand_in_register_parse_test_elements(void);

#endif
