// The libsoup shim: only what Swift cannot reach in libsoup/GIO headers.
// Every symbol is prefixed `plumb_`; each entry says why it exists.
#pragma once
#include <libsoup/soup.h>

/// soup_server_new is varargs (property name/value pairs).
/// `server_header` is the Server response header ("plumb"), or NULL for none.
/// "raw-paths" is set: handlers get the path still percent-encoded, so an
/// encoded slash cannot be confused with a segment boundary (the router
/// decodes each segment itself).
SoupServer *plumb_soup_server_new(const char *server_header);

// --- Signals ----------------------------------------------------------------
/// The signature of SoupServerMessage's "finished", "disconnected" and
/// "wrote-chunk" signals (no arguments besides the message).
typedef void (*PlumbServerMessageFunc)(SoupServerMessage *message, gpointer user_data);

/// g_signal_connect_data needs the callback cast to GCallback (and the notify to
/// GClosureNotify): casts Swift cannot write. `signal` must be one with the
/// PlumbServerMessageFunc signature. Returns the handler id.
gulong plumb_server_message_connect(SoupServerMessage *message, const char *signal,
                                    PlumbServerMessageFunc func, gpointer user_data,
                                    GDestroyNotify notify);

// --- Socket watch -------------------------------------------------------------
/// Called on the thread iterating the watch's context. Return FALSE to remove the watch.
typedef gboolean (*PlumbSocketFunc)(GSocket *socket, GIOCondition condition, gpointer user_data);

/// g_socket_create_source + g_source_set_callback + g_source_attach: the
/// GSocketSourceFunc must be cast to GSourceFunc. Used to notice that a client
/// closed a streaming response while nothing is being written to it.
/// Returns the attached source (caller owns one reference; destroy it to stop).
GSource *plumb_socket_watch_attach(GSocket *socket, GIOCondition condition, GMainContext *context,
                                   PlumbSocketFunc func, gpointer user_data, GDestroyNotify notify);
