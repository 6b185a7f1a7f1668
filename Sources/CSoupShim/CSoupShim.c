#include "CSoupShim.h"

SoupServer *plumb_soup_server_new(const char *server_header) {
  return soup_server_new("server-header", server_header, "raw-paths", TRUE, NULL);
}

gulong plumb_server_message_connect(SoupServerMessage *message, const char *signal,
                                    PlumbServerMessageFunc func, gpointer user_data,
                                    GDestroyNotify notify) {
  return g_signal_connect_data(message, signal, G_CALLBACK(func), user_data,
                               (GClosureNotify)(void (*)(void))notify, 0);
}

gulong plumb_server_message_connect_wrote_body_data(SoupServerMessage *message, PlumbServerMessageSizeFunc func,
                                                    gpointer user_data, GDestroyNotify notify) {
  return g_signal_connect_data(message, "wrote-body-data", G_CALLBACK(func), user_data,
                               (GClosureNotify)(void (*)(void))notify, 0);
}

gulong plumb_server_connect_request_started(SoupServer *server, PlumbServerRequestFunc func,
                                            gpointer user_data, GDestroyNotify notify) {
  return g_signal_connect_data(server, "request-started", G_CALLBACK(func), user_data,
                               (GClosureNotify)(void (*)(void))notify, 0);
}

GSource *plumb_socket_watch_attach(GSocket *socket, GIOCondition condition, gint priority, GMainContext *context,
                                   PlumbSocketFunc func, gpointer user_data, GDestroyNotify notify) {
  GSource *source = g_socket_create_source(socket, condition, NULL);
  g_source_set_priority(source, priority);
  g_source_set_callback(source, (GSourceFunc)(void (*)(void))func, user_data, notify);
  g_source_attach(source, context);
  return source;
}
