#include "CStandIns.h"
#include <string.h>

// Test-only stand-ins for hardware elements (no board is attached to the test machines).
// Each registered name gets its own GType (GstBin subclass) whose class data says what it
// wraps and which interface it presents.

typedef struct {
  gchar *name;
  gchar *inner;
  PlumbStandInKind kind;
  GstCaps *sink_caps;
  guint alignment;
  gchar *device;
} StandInClassData;

// Every registered stand-in's class data, by name, for plumb_stand_in_set_device.
static GHashTable *registered;

typedef struct {
  GstBin parent;
  GstElement *filter;
  GstElement *encoder;
  gchar *device;
  gboolean fail_start;
  GstStructure *extra_controls;
  guint bitrate, key_int_max, target_usage, b_frames, ref_frames;
  guint64 frames;
} StandIn;

typedef struct {
  GstBinClass parent;
  StandInClassData *data;
} StandInClass;

enum { PROP_0, PROP_DEVICE, PROP_FAIL_START, PROP_EXTRA_CONTROLS, PROP_BITRATE, PROP_KEY_INT_MAX,
       PROP_TARGET_USAGE, PROP_B_FRAMES, PROP_REF_FRAMES };

static GstElementClass *stand_in_parent_class(GObject *object) {
  return GST_ELEMENT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(object)));
}

static StandInClassData *class_data(gpointer instance) {
  return ((StandInClass *)G_OBJECT_GET_CLASS(instance))->data;
}

// What the wrapped software encoder does with the hardware settings: bitrate in kbit/s and
// the keyframe interval, so that a recording made through the stand-in shows them.
static void apply_to_inner(StandIn *self) {
  if (!g_object_class_find_property(G_OBJECT_GET_CLASS(self->encoder), "bitrate")) return;  // a decoder
  if (self->bitrate > 0) g_object_set(self->encoder, "bitrate", self->bitrate, NULL);
  if (self->key_int_max > 0) g_object_set(self->encoder, "key-int-max", (gint)self->key_int_max, NULL);
}

static void apply_extra_controls(StandIn *self) {
  gint value;
  if (self->extra_controls == NULL) return;
  if (gst_structure_get_int(self->extra_controls, "video_bitrate", &value) && value > 0)
    self->bitrate = (guint)MAX(1, value / 1000);
  if (gst_structure_get_int(self->extra_controls, "h264_i_frame_period", &value) && value > 0)
    self->key_int_max = (guint)value;
  if (gst_structure_get_int(self->extra_controls, "hevc_i_frame_period", &value) && value > 0)
    self->key_int_max = (guint)value;
}

static void stand_in_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  StandIn *self = (StandIn *)object;
  switch (id) {
  case PROP_DEVICE: g_free(self->device); self->device = g_value_dup_string(value); break;
  case PROP_FAIL_START: self->fail_start = g_value_get_boolean(value); break;
  case PROP_EXTRA_CONTROLS:
    if (self->extra_controls) gst_structure_free(self->extra_controls);
    self->extra_controls = g_value_dup_boxed(value);
    apply_extra_controls(self);
    break;
  case PROP_BITRATE: self->bitrate = g_value_get_uint(value); break;
  case PROP_KEY_INT_MAX: self->key_int_max = g_value_get_uint(value); break;
  case PROP_TARGET_USAGE: self->target_usage = g_value_get_uint(value); break;
  case PROP_B_FRAMES: self->b_frames = g_value_get_uint(value); break;
  case PROP_REF_FRAMES: self->ref_frames = g_value_get_uint(value); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); return;
  }
  apply_to_inner(self);
}

static void stand_in_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  StandIn *self = (StandIn *)object;
  switch (id) {
  case PROP_DEVICE: g_value_set_string(value, self->device); break;
  case PROP_FAIL_START: g_value_set_boolean(value, self->fail_start); break;
  case PROP_EXTRA_CONTROLS: g_value_set_boxed(value, self->extra_controls); break;
  case PROP_BITRATE: g_value_set_uint(value, self->bitrate); break;
  case PROP_KEY_INT_MAX: g_value_set_uint(value, self->key_int_max); break;
  case PROP_TARGET_USAGE: g_value_set_uint(value, self->target_usage); break;
  case PROP_B_FRAMES: g_value_set_uint(value, self->b_frames); break;
  case PROP_REF_FRAMES: g_value_set_uint(value, self->ref_frames); break;
  default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
  }
}

static gboolean listed_in(const gchar *variable, const gchar *name) {
  const gchar *list = g_getenv(variable);
  if (list == NULL) return FALSE;
  gchar **names = g_strsplit(list, ",", -1);
  gboolean found = g_strv_contains((const gchar *const *)names, name);
  g_strfreev(names);
  return found;
}

// A driver error while running: after a few frames, when PLUMB_STAND_IN_FAIL_RUNNING lists it.
static GstPadProbeReturn fail_while_running(GstPad *pad, GstPadProbeInfo *info, gpointer user_data) {
  StandIn *self = user_data;
  if (++self->frames == 5 && listed_in("PLUMB_STAND_IN_FAIL_RUNNING", class_data(self)->name)) {
    GST_ELEMENT_ERROR(self, STREAM, ENCODE, ("Failed to process frame."),
                      ("driver error: VIDIOC_QBUF: Input/output error (stand-in told to fail while running)"));
    return GST_PAD_PROBE_DROP;
  }
  return self->frames > 5 && listed_in("PLUMB_STAND_IN_FAIL_RUNNING", class_data(self)->name)
      ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static gboolean told_to_fail(StandIn *self) {
  return self->fail_start || listed_in("PLUMB_STAND_IN_FAIL", class_data(self)->name);
}

static GstStateChangeReturn stand_in_change_state(GstElement *element, GstStateChange transition) {
  StandIn *self = (StandIn *)element;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && told_to_fail(self)) {
    // What gstv4l2object posts when the device node cannot be opened.
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_READ_WRITE,
                      ("Could not open device '%s' for reading and writing.", self->device),
                      ("system error: No such file or directory (stand-in told to fail)"));
    return GST_STATE_CHANGE_FAILURE;
  }
  return stand_in_parent_class(G_OBJECT(element))->change_state(element, transition);
}

// The hardware's alignment: a size it cannot take is refused at caps time, with an error
// naming it (a driver would refuse S_FMT or crop silently).
static GstPadProbeReturn check_caps(GstPad *pad, GstPadProbeInfo *info, gpointer user_data) {
  StandIn *self = user_data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
  guint alignment = class_data(self)->alignment;
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS && alignment > 1) {
    GstCaps *caps;
    gint width = 0, height = 0;
    gst_event_parse_caps(event, &caps);
    GstStructure *s = gst_caps_get_structure(caps, 0);
    gst_structure_get_int(s, "width", &width);
    gst_structure_get_int(s, "height", &height);
    if (width % alignment != 0 || height % alignment != 0) {
      GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                        ("%dx%d is not supported: width and height must be multiples of %u", width, height, alignment),
                        (NULL));
      return GST_PAD_PROBE_DROP;
    }
  }
  return GST_PAD_PROBE_OK;
}

static void stand_in_init(GTypeInstance *instance, gpointer klass) {
  StandIn *self = (StandIn *)instance;
  StandInClassData *data = ((StandInClass *)klass)->data;
  self->device = g_strdup(data->device);
  self->target_usage = 4;
  self->ref_frames = 1;
  self->filter = gst_element_factory_make("capsfilter", "stand-in-caps");
  self->encoder = gst_element_factory_make(data->inner, "stand-in-encoder");
  g_object_set(self->filter, "caps", data->sink_caps, NULL);
  // Fast enough for tests, with CABAC (so the profile in the caps after it decides between
  // constrained baseline and main); the hardware settings come through apply_to_inner.
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(self->encoder), "speed-preset")) {
    gst_util_set_object_arg(G_OBJECT(self->encoder), "tune", "zerolatency");
    gst_util_set_object_arg(G_OBJECT(self->encoder), "speed-preset", "superfast");
  }
  gst_bin_add_many(GST_BIN(self), self->filter, self->encoder, NULL);
  gst_element_link(self->filter, self->encoder);
  GstPad *target = gst_element_get_static_pad(self->filter, "sink");
  gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, check_caps, self, NULL);
  gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_BUFFER, fail_while_running, self, NULL);
  GstPadTemplate *sink_template = gst_element_class_get_pad_template(GST_ELEMENT_CLASS(klass), "sink");
  gst_element_add_pad(GST_ELEMENT(self), gst_ghost_pad_new_from_template("sink", target, sink_template));
  gst_object_unref(target);
  GstPad *source = gst_element_get_static_pad(self->encoder, "src");
  gst_element_add_pad(GST_ELEMENT(self), gst_ghost_pad_new("src", source));
  gst_object_unref(source);
}

static void stand_in_finalize(GObject *object) {
  StandIn *self = (StandIn *)object;
  g_free(self->device);
  if (self->extra_controls) gst_structure_free(self->extra_controls);
  G_OBJECT_CLASS(g_type_class_peek_parent(G_OBJECT_GET_CLASS(object)))->finalize(object);
}

static void stand_in_class_init(gpointer klass, gpointer class_data_pointer) {
  StandInClassData *data = class_data_pointer;
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  ((StandInClass *)klass)->data = data;
  object_class->set_property = stand_in_set_property;
  object_class->get_property = stand_in_get_property;
  object_class->finalize = stand_in_finalize;
  element_class->change_state = stand_in_change_state;
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  g_object_class_install_property(object_class, PROP_DEVICE,
                                  g_param_spec_string("device", "Device", "Device node", NULL, rw));
  g_object_class_install_property(object_class, PROP_FAIL_START,
                                  g_param_spec_boolean("fail-start", "Fail at start", "Test control", FALSE, rw));
  if (data->kind == PLUMB_STAND_IN_V4L2) {
    g_object_class_install_property(object_class, PROP_EXTRA_CONTROLS,
        g_param_spec_boxed("extra-controls", "Extra Controls", "Extra v4l2 controls (CIDs) for the device",
                           GST_TYPE_STRUCTURE, rw));
  } else {
    g_object_class_install_property(object_class, PROP_BITRATE,
        g_param_spec_uint("bitrate", "Bitrate (kbps)", "The desired bitrate expressed in kbps", 0, 2048000, 0, rw));
    g_object_class_install_property(object_class, PROP_KEY_INT_MAX,
        g_param_spec_uint("key-int-max", "Key frame maximal interval", "", 0, 1024, 0, rw));
    g_object_class_install_property(object_class, PROP_TARGET_USAGE,
        g_param_spec_uint("target-usage", "target usage", "1: best quality, 7: best speed", 1, 7, 4, rw));
    g_object_class_install_property(object_class, PROP_B_FRAMES,
        g_param_spec_uint("b-frames", "B Frames", "", 0, 31, 0, rw));
    g_object_class_install_property(object_class, PROP_REF_FRAMES,
        g_param_spec_uint("ref-frames", "Reference Frames", "", 0, 16, 1, rw));
  }
  gst_element_class_add_pad_template(element_class,
      gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, data->sink_caps));
  GstElementFactory *inner = gst_element_factory_find(data->inner);
  GstCaps *source_caps = gst_caps_new_any();
  if (inner) {
    for (const GList *t = gst_element_factory_get_static_pad_templates(inner); t; t = t->next) {
      GstStaticPadTemplate *tmpl = t->data;
      if (tmpl->direction == GST_PAD_SRC) {
        gst_caps_unref(source_caps);
        source_caps = gst_static_caps_get(&tmpl->static_caps);
      }
    }
    gst_object_unref(inner);
  }
  gst_element_class_add_pad_template(element_class,
      gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, source_caps));
  gst_caps_unref(source_caps);
  gboolean decoder = g_str_has_suffix(data->inner, "dec");
  gst_element_class_set_metadata(element_class, data->name,
                                 decoder ? "Codec/Decoder/Image/Hardware" : "Codec/Encoder/Video/Hardware",
                                 "Test stand-in for a hardware codec", "Plumb tests");
}

gboolean plumb_stand_in_register(const gchar *name, const gchar *inner, PlumbStandInKind kind,
                                 const gchar *sink_caps, guint alignment) {
  GstElementFactory *existing = gst_element_factory_find(name);
  if (existing) {
    gst_object_unref(existing);
    return FALSE;
  }
  StandInClassData *data = g_new0(StandInClassData, 1);  // lives as long as the type
  data->name = g_strdup(name);
  data->inner = g_strdup(inner);
  data->kind = kind;
  data->sink_caps = gst_caps_from_string(sink_caps);
  data->alignment = alignment;
  data->device = g_strdup(kind == PLUMB_STAND_IN_V4L2 ? "/dev/video11" : "/dev/dri/renderD128");
  if (registered == NULL) registered = g_hash_table_new(g_str_hash, g_str_equal);
  g_hash_table_insert(registered, data->name, data);
  gchar *type_name = g_strdup_printf("PlumbStandIn_%s", name);
  GTypeInfo info = {
    .class_size = sizeof(StandInClass),
    .class_init = stand_in_class_init,
    .class_data = data,
    .instance_size = sizeof(StandIn),
    .instance_init = stand_in_init,
  };
  GType type = g_type_register_static(GST_TYPE_BIN, type_name, &info, 0);
  g_free(type_name);
  return gst_element_register(NULL, name, GST_RANK_PRIMARY + 1, type);
}


void plumb_stand_in_set_device(const gchar *name, const gchar *device) {
  StandInClassData *data = registered ? g_hash_table_lookup(registered, name) : NULL;
  if (data == NULL) return;
  g_free(data->device);
  data->device = g_strdup(device);
}

// ---- libcamera: libcamerasrc and its device provider ----

static GMutex libcameras_lock;
static gchar **libcameras;  // the connected stand-in cameras

void plumb_stand_in_set_libcameras(const gchar *const *names) {
  g_mutex_lock(&libcameras_lock);
  g_strfreev(libcameras);
  libcameras = g_strdupv((gchar **)names);
  g_mutex_unlock(&libcameras_lock);
}

static gboolean libcamera_connected(const gchar *name) {
  g_mutex_lock(&libcameras_lock);
  gboolean found = libcameras != NULL && (name == NULL ? libcameras[0] != NULL
                                                        : g_strv_contains((const gchar *const *)libcameras, name));
  g_mutex_unlock(&libcameras_lock);
  return found;
}

typedef struct {
  GstBin parent;
  GstElement *source;
  gchar *camera_name;
} LibcameraSrc;

typedef struct {
  GstBinClass parent;
} LibcameraSrcClass;

enum { LIBCAMERA_PROP_0, LIBCAMERA_PROP_CAMERA_NAME };

G_DEFINE_TYPE(LibcameraSrc, plumb_libcamera_src, GST_TYPE_BIN)

static void libcamera_src_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  LibcameraSrc *self = (LibcameraSrc *)object;
  if (id != LIBCAMERA_PROP_CAMERA_NAME) { G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); return; }
  g_free(self->camera_name);
  self->camera_name = g_value_dup_string(value);
}

static void libcamera_src_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  LibcameraSrc *self = (LibcameraSrc *)object;
  if (id != LIBCAMERA_PROP_CAMERA_NAME) { G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); return; }
  g_value_set_string(value, self->camera_name);
}

static GstStateChangeReturn libcamera_src_change_state(GstElement *element, GstStateChange transition) {
  LibcameraSrc *self = (LibcameraSrc *)element;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    // libcamerasrc acquires the camera here and posts these errors when it cannot.
    if (!libcamera_connected(NULL)) {
      GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("Could not find any supported camera on this system."),
                        ("libcamera::CameraMananger::cameras() is empty"));
      return GST_STATE_CHANGE_FAILURE;
    }
    if (self->camera_name != NULL && !libcamera_connected(self->camera_name)) {
      GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("Could not find a camera named '%s'.", self->camera_name),
                        ("libcamera::CameraMananger::get() returned nullptr"));
      return GST_STATE_CHANGE_FAILURE;
    }
  }
  return GST_ELEMENT_CLASS(plumb_libcamera_src_parent_class)->change_state(element, transition);
}

static void libcamera_src_finalize(GObject *object) {
  g_free(((LibcameraSrc *)object)->camera_name);
  G_OBJECT_CLASS(plumb_libcamera_src_parent_class)->finalize(object);
}

static GstStaticPadTemplate libcamera_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                            GST_STATIC_CAPS("video/x-raw,format={NV12,I420,YUY2},width=[1,4608],height=[1,2592],"
                                            "framerate=[1/1,120/1]"));

static void plumb_libcamera_src_class_init(LibcameraSrcClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  object_class->set_property = libcamera_src_set_property;
  object_class->get_property = libcamera_src_get_property;
  object_class->finalize = libcamera_src_finalize;
  element_class->change_state = libcamera_src_change_state;
  g_object_class_install_property(object_class, LIBCAMERA_PROP_CAMERA_NAME,
      g_param_spec_string("camera-name", "Camera Name", "Select by name which camera to use.", NULL,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template(element_class, &libcamera_src_template);
  gst_element_class_set_metadata(element_class, "libcamera Source", "Source/Video",
                                 "Test stand-in for libcamerasrc", "Plumb tests");
}

static void plumb_libcamera_src_init(LibcameraSrc *self) {
  self->source = gst_element_factory_make("videotestsrc", "stand-in-camera");
  g_object_set(self->source, "is-live", TRUE, NULL);
  gst_util_set_object_arg(G_OBJECT(self->source), "pattern", "ball");
  GstElement *filter = gst_element_factory_make("capsfilter", "stand-in-formats");
  GstCaps *caps = gst_static_pad_template_get_caps(&libcamera_src_template);
  g_object_set(filter, "caps", caps, NULL);
  gst_caps_unref(caps);
  gst_bin_add_many(GST_BIN(self), self->source, filter, NULL);
  gst_element_link(self->source, filter);
  GstPad *target = gst_element_get_static_pad(filter, "src");
  GstPadTemplate *templ = gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(self), "src");
  gst_element_add_pad(GST_ELEMENT(self), gst_ghost_pad_new_from_template("src", target, templ));
  gst_object_unref(target);
}

// The device the provider lists: makes a libcamerasrc for its camera.
typedef struct {
  GstDevice parent;
  gchar *camera_name;
} LibcameraDevice;

typedef struct {
  GstDeviceClass parent;
} LibcameraDeviceClass;

G_DEFINE_TYPE(LibcameraDevice, plumb_libcamera_device, GST_TYPE_DEVICE)

static GstElement *libcamera_device_create_element(GstDevice *device, const gchar *name) {
  GstElement *element = gst_element_factory_make("libcamerasrc", name);
  if (element) g_object_set(element, "camera-name", ((LibcameraDevice *)device)->camera_name, NULL);
  return element;
}

static void libcamera_device_finalize(GObject *object) {
  g_free(((LibcameraDevice *)object)->camera_name);
  G_OBJECT_CLASS(plumb_libcamera_device_parent_class)->finalize(object);
}

static void plumb_libcamera_device_class_init(LibcameraDeviceClass *klass) {
  GST_DEVICE_CLASS(klass)->create_element = libcamera_device_create_element;
  G_OBJECT_CLASS(klass)->finalize = libcamera_device_finalize;
}

static void plumb_libcamera_device_init(LibcameraDevice *self) {}

typedef struct {
  GstDeviceProvider parent;
} LibcameraProvider;

typedef struct {
  GstDeviceProviderClass parent;
} LibcameraProviderClass;

G_DEFINE_TYPE(LibcameraProvider, plumb_libcamera_provider, GST_TYPE_DEVICE_PROVIDER)

static GList *libcamera_provider_probe(GstDeviceProvider *provider) {
  GList *devices = NULL;
  g_mutex_lock(&libcameras_lock);
  for (gchar **name = libcameras; name && *name; name++) {
    GstCaps *caps = gst_static_pad_template_get_caps(&libcamera_src_template);
    // As libcamera's provider: the camera's id as its name, no device node.
    LibcameraDevice *device = g_object_new(plumb_libcamera_device_get_type(), "display-name", *name,
                                           "caps", caps, "device-class", "Source/Video", NULL);
    device->camera_name = g_strdup(*name);
    gst_caps_unref(caps);
    devices = g_list_append(devices, gst_object_ref_sink(device));
  }
  g_mutex_unlock(&libcameras_lock);
  return devices;
}

static void plumb_libcamera_provider_class_init(LibcameraProviderClass *klass) {
  GstDeviceProviderClass *provider_class = GST_DEVICE_PROVIDER_CLASS(klass);
  provider_class->probe = libcamera_provider_probe;
  gst_device_provider_class_set_static_metadata(provider_class, "libcamera Device Provider", "Source/Video",
                                                "Test stand-in for libcamera's provider", "Plumb tests");
}

static void plumb_libcamera_provider_init(LibcameraProvider *self) {}

gboolean plumb_stand_in_register_libcamera(void) {
  GstElementFactory *existing = gst_element_factory_find("libcamerasrc");
  if (existing) {
    gst_object_unref(existing);
    return FALSE;
  }
  return gst_element_register(NULL, "libcamerasrc", GST_RANK_PRIMARY, plumb_libcamera_src_get_type())
      && gst_device_provider_register(NULL, "libcameraprovider", GST_RANK_PRIMARY,
                                      plumb_libcamera_provider_get_type());
}
