#include "CGStreamerShim.h"

GType plumb_type_boolean(void) { return G_TYPE_BOOLEAN; }
GType plumb_type_int(void) { return G_TYPE_INT; }
GType plumb_type_uint(void) { return G_TYPE_UINT; }
GType plumb_type_long(void) { return G_TYPE_LONG; }
GType plumb_type_ulong(void) { return G_TYPE_ULONG; }
GType plumb_type_int64(void) { return G_TYPE_INT64; }
GType plumb_type_uint64(void) { return G_TYPE_UINT64; }
GType plumb_type_float(void) { return G_TYPE_FLOAT; }
GType plumb_type_double(void) { return G_TYPE_DOUBLE; }
GType plumb_type_string(void) { return G_TYPE_STRING; }
GType plumb_type_enum(void) { return G_TYPE_ENUM; }
GType plumb_type_flags(void) { return G_TYPE_FLAGS; }

GType plumb_object_type(gpointer instance) { return G_OBJECT_TYPE(instance); }

GParamSpec *plumb_object_find_property(gpointer object, const gchar *name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
}

GSource *plumb_bus_watch_attach(GstBus *bus, GMainContext *context, GstBusFunc func,
                                gpointer user_data, GDestroyNotify notify) {
  GSource *source = gst_bus_create_watch(bus);
  if (source == NULL) return NULL;
  g_source_set_callback(source, (GSourceFunc)(void (*)(void))func, user_data, notify);
  g_source_attach(source, context);
  return source;
}

gulong plumb_signal_connect_pointer(gpointer instance, const gchar *signal, PlumbPointerSignalFunc func,
                                    gpointer user_data, GDestroyNotify notify) {
  return g_signal_connect_data(instance, signal, G_CALLBACK(func), user_data,
                               (GClosureNotify)(void (*)(void))notify, 0);
}

gulong plumb_signal_connect_void(gpointer instance, const gchar *signal, PlumbVoidSignalFunc func,
                                 gpointer user_data, GDestroyNotify notify) {
  return g_signal_connect_data(instance, signal, G_CALLBACK(func), user_data,
                               (GClosureNotify)(void (*)(void))notify, 0);
}

GstStructure *plumb_leaks_tracer_live_objects(void) {
  GList *tracers = gst_tracing_get_active_tracers();
  GstStructure *result = NULL;
  for (GList *l = tracers; l != NULL; l = l->next) {
    GstTracer *tracer = l->data;
    if (result == NULL && g_str_has_prefix(G_OBJECT_TYPE_NAME(tracer), "GstLeaksTracer")) {
      g_signal_emit_by_name(tracer, "get-live-objects", &result);
    }
  }
  g_list_free_full(tracers, gst_object_unref);
  if (result == NULL) return NULL;
  // Disown the objects (see the header): a NULL object or boxed value frees nothing.
  const GValue *list = gst_structure_get_value(result, "live-objects-list");
  guint n = list != NULL && GST_VALUE_HOLDS_LIST(list) ? gst_value_list_get_size(list) : 0;
  for (guint i = 0; i < n; i++) {
    const GValue *entry = gst_value_list_get_value(list, i);
    if (!GST_VALUE_HOLDS_STRUCTURE(entry)) continue;
    GValue *object = (GValue *)gst_structure_get_value(gst_value_get_structure(entry), "object");
    if (object != NULL) object->data[0].v_pointer = NULL;
  }
  return result;
}
