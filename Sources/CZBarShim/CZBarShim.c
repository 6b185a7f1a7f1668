// zbar's image scanner (img_scanner.o in libzbar.a) can announce each code it finds on D-Bus,
// but only once asked to (zbar_image_scanner_request_dbus), which Plumb never does. Its
// references to libdbus are met here instead of by libdbus, which would load libsystemd,
// libgcrypt and five more libraries (0.7 MiB resident) into every plumb process for code that
// never runs. Hidden, so nothing outside the executable can bind to them. Should zbar ever
// call one, the process stops saying which, rather than going on with a wrong answer.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noreturn)) static void never_called(const char *name) {
  fprintf(stderr, "plumb: zbar called %s, but it was linked without D-Bus (CZBarShim.c)\n", name);
  abort();
}

#define NOT_LINKED(name) \
  __attribute__((visibility("hidden"))) void name(void); \
  void name(void) { never_called(#name); }

NOT_LINKED(dbus_bus_get)
NOT_LINKED(dbus_bus_release_name)
NOT_LINKED(dbus_bus_request_name)
NOT_LINKED(dbus_connection_flush)
NOT_LINKED(dbus_connection_send)
NOT_LINKED(dbus_error_free)
NOT_LINKED(dbus_error_init)
NOT_LINKED(dbus_error_is_set)
NOT_LINKED(dbus_message_iter_append_basic)
NOT_LINKED(dbus_message_iter_append_fixed_array)
NOT_LINKED(dbus_message_iter_close_container)
NOT_LINKED(dbus_message_iter_init_append)
NOT_LINKED(dbus_message_iter_open_container)
NOT_LINKED(dbus_message_new_signal)
NOT_LINKED(dbus_message_unref)
