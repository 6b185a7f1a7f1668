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
// g_signal_connect_data needs the callback cast to GCallback (and the notify to
// GClosureNotify): casts Swift cannot write. One typed entry per signal signature.

/// The signature of SoupServerMessage's signals without arguments ("connected",
/// "got-body", "wrote-headers", "wrote-chunk", "finished", "disconnected").
typedef void (*PlumbServerMessageFunc)(SoupServerMessage *message, gpointer user_data);

/// Connects `func` to such a signal of `message`. Returns the handler id.
gulong plumb_server_message_connect(SoupServerMessage *message, const char *signal,
                                    PlumbServerMessageFunc func, gpointer user_data,
                                    GDestroyNotify notify);

/// The signature of SoupServerMessage's "wrote-body-data" (the bytes just written).
typedef void (*PlumbServerMessageSizeFunc)(SoupServerMessage *message, guint size, gpointer user_data);

/// Connects `func` to "wrote-body-data" of `message`. Returns the handler id.
gulong plumb_server_message_connect_wrote_body_data(SoupServerMessage *message, PlumbServerMessageSizeFunc func,
                                                    gpointer user_data, GDestroyNotify notify);

/// The signature of SoupServer's "request-started" (a new message, before any of it is read).
typedef void (*PlumbServerRequestFunc)(SoupServer *server, SoupServerMessage *message, gpointer user_data);

/// Connects `func` to "request-started" of `server`: the only place a connection
/// shows itself (at accept, and when a kept-alive one starts its next request).
gulong plumb_server_connect_request_started(SoupServer *server, PlumbServerRequestFunc func,
                                            gpointer user_data, GDestroyNotify notify);

// --- Socket watch -------------------------------------------------------------
/// Called on the thread iterating the watch's context. Return FALSE to remove the watch.
typedef gboolean (*PlumbSocketFunc)(GSocket *socket, GIOCondition condition, gpointer user_data);

/// g_socket_create_source + g_source_set_priority + g_source_set_callback +
/// g_source_attach: the GSocketSourceFunc must be cast to GSourceFunc. Used to notice
/// that a client closed a connection while soup does not read it, and to see a
/// request's head before soup reads it (at a priority above soup's own sources).
/// Returns the attached source (caller owns one reference; destroy it to stop).
GSource *plumb_socket_watch_attach(GSocket *socket, GIOCondition condition, gint priority, GMainContext *context,
                                   PlumbSocketFunc func, gpointer user_data, GDestroyNotify notify);
