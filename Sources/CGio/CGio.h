#pragma once
// GLib, GObject and GIO, for the GLib module: main contexts, key files, the log, GDBus.
#include <gio/gio.h>
