#pragma once
// GLib, GObject and GIO's declarations, for the GLib module: main contexts, key files, the log,
// GDBus (whose functions CGioShim loads).
#include <gio/gio.h>
