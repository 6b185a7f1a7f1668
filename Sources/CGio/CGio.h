#pragma once
// GIO's GDBus, for iio-sensor-proxy (net.hadess.SensorProxy) on the system bus.
#include <gio/gio.h>
