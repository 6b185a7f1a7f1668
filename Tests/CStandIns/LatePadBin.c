#include "CStandIns.h"

// The elements GStreamer's parse-launch test registers for itself, so that its launch strings
// can be checked here too: "1__dentity" (identity under a name that starts with a digit) and
// "parsetestelement", a bin around a fakesrc whose "src" pad, a sometimes pad, appears only on
// READY->PAUSED (a link to it has to wait for the pad).

typedef struct {
  GstBin parent;
  GstElement *fakesrc;
} LatePadBin;

typedef struct {
  GstBinClass parent;
} LatePadBinClass;

G_DEFINE_TYPE(LatePadBin, plumb_late_pad_bin, GST_TYPE_BIN)

static GstStaticPadTemplate late_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_SOMETIMES, GST_STATIC_CAPS("application/x-test-caps"));

static GstStateChangeReturn late_pad_bin_change_state(GstElement *element, GstStateChange transition) {
  LatePadBin *self = (LatePadBin *)element;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GstPad *existing = gst_element_get_static_pad(element, "src");
    if (existing != NULL) {
      gst_object_unref(existing);
    } else {
      GstPad *inner = gst_element_get_static_pad(self->fakesrc, "src");
      GstPad *ghost = gst_ghost_pad_new_from_template("src", inner, gst_static_pad_template_get(&late_src_template));
      gst_object_unref(inner);
      gst_pad_set_active(ghost, TRUE);
      gst_element_add_pad(element, ghost);
    }
  }
  return GST_ELEMENT_CLASS(plumb_late_pad_bin_parent_class)->change_state(element, transition);
}

static void plumb_late_pad_bin_class_init(LatePadBinClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_add_static_pad_template(element_class, &late_src_template);
  gst_element_class_set_static_metadata(element_class, "Late pad bin (test)", "Source",
                                        "A fakesrc whose pad appears on READY->PAUSED", "Plumb tests");
  element_class->change_state = late_pad_bin_change_state;
}

static void plumb_late_pad_bin_init(LatePadBin *self) {
  self->fakesrc = gst_element_factory_make("fakesrc", NULL);
  gst_bin_add(GST_BIN(self), self->fakesrc);
}

gboolean plumb_stand_in_register_parse_test_elements(void) {
  GstElementFactory *identity = gst_element_factory_find("identity");
  if (identity == NULL) return FALSE;
  GstPluginFeature *loaded = gst_plugin_feature_load(GST_PLUGIN_FEATURE(identity));
  gst_object_unref(identity);
  if (loaded == NULL) return FALSE;
  GType identity_type = gst_element_factory_get_element_type(GST_ELEMENT_FACTORY(loaded));
  gst_object_unref(loaded);
  return gst_element_register(NULL, "1__dentity", GST_RANK_NONE, identity_type)
      && gst_element_register(NULL, "parsetestelement", GST_RANK_NONE, plumb_late_pad_bin_get_type());
}
