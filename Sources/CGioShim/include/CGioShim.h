#pragma once
#include <gio/gio.h>

/// GIO's D-Bus functions, the only part of GIO the GLib module calls, resolved from
/// libgio-2.0.so.0 when D-Bus is first used rather than linked: `plumb` then loads libgio
/// (and libmount, libblkid, libselinux, 0.7 MiB resident) only for the sensor-proxy
/// accelerometer, not for every command (issue 26). Each field has the C function's own type.
#define PLUMB_GIO_FUNCTIONS(F)                                                                   \
  F(bus_unwatch_name) F(bus_watch_name_on_connection) F(dbus_address_get_for_bus_sync)            \
  F(dbus_connection_call) F(dbus_connection_call_finish) F(dbus_connection_call_sync)             \
  F(dbus_connection_close) F(dbus_connection_close_finish) F(dbus_connection_emit_signal)         \
  F(dbus_connection_get_unique_name) F(dbus_connection_new_for_address_sync)                      \
  F(dbus_connection_set_exit_on_close) F(dbus_connection_signal_subscribe)                        \
  F(dbus_connection_signal_unsubscribe) F(dbus_error_get_remote_error)                            \
  F(dbus_error_strip_remote_error) F(dbus_is_interface_name) F(dbus_is_member_name) F(dbus_is_name)

typedef struct {
#define PLUMB_GIO_FIELD(name) __typeof__(g_##name) *_Nonnull name;
  PLUMB_GIO_FUNCTIONS(PLUMB_GIO_FIELD)
#undef PLUMB_GIO_FIELD
} PlumbGio;

/// Loads libgio and resolves the table the first time; NULL, with `*error` saying why, if it
/// cannot be. Thread-safe.
const PlumbGio *_Nullable plumb_gio_load(const char *_Nullable *_Nonnull error);

/// The table if libgio was loaded already, else NULL (never loads it).
const PlumbGio *_Nullable plumb_gio_loaded(void);
