// webrtcbin's negotiation for the WHEP preview, and the RTP header extension its
// viewers get the device's turn in: see CGStreamerShim.h.
#include "CGStreamerShim.h"
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/sdp/sdp.h>
#include <gst/video/video.h>
#include <dlfcn.h>

// GstWebRTCSessionDescription as gst/webrtc/rtcsessiondescription.h declares it (a
// public, stable struct). Its header comes only with libgstreamer-plugins-bad1.0-dev,
// which pulls in hundreds of megabytes of unrelated libraries; the boxed type itself is
// registered by the webrtcbin plugin, found here by name.
typedef struct {
    gint type;             // GstWebRTCSDPType: 1 offer, 3 answer
    GstSDPMessage *sdp;
} PlumbSessionDescription;

// libgstsdp's functions, from the copy webrtcbin's plugin has loaded (it links it), not
// linked here: that would load libgstsdp, and the GIO it needs (0.7 MiB resident), into every
// plumb process, WHEP or not (issue 26).
typedef struct {
    __typeof__(gst_sdp_message_new_from_text) *new_from_text;
    __typeof__(gst_sdp_message_as_text) *as_text;
    __typeof__(gst_sdp_message_free) *free;
} PlumbSDP;

static gboolean plumb_sdp(PlumbSDP *sdp, gchar **error) {
    void *library = dlopen("libgstsdp-1.0.so.0", RTLD_NOW);
    if (library == NULL) {
        *error = g_strdup_printf("cannot load libgstsdp: %s", dlerror());
        return FALSE;
    }
    *(void **)&sdp->new_from_text = dlsym(library, "gst_sdp_message_new_from_text");
    *(void **)&sdp->as_text = dlsym(library, "gst_sdp_message_as_text");
    *(void **)&sdp->free = dlsym(library, "gst_sdp_message_free");
    // The plugin keeps it loaded; this reference is not needed to use it.
    dlclose(library);
    if (sdp->new_from_text == NULL || sdp->as_text == NULL || sdp->free == NULL) {
        *error = g_strdup("libgstsdp lacks gst_sdp_message_new_from_text, _as_text or _free");
        return FALSE;
    }
    return TRUE;
}

enum { PLUMB_SDP_TYPE_OFFER = 1 };
enum { PLUMB_ICE_GATHERING_COMPLETE = 2 };

static gchar *plumb_promise_error(GstPromise *promise, const gchar *step) {
    GstPromiseResult result = gst_promise_wait(promise);
    if (result != GST_PROMISE_RESULT_REPLIED) {
        return g_strdup_printf("webrtcbin did not answer %s", step);
    }
    const GstStructure *reply = gst_promise_get_reply(promise);
    if (reply != NULL && gst_structure_has_field(reply, "error")) {
        GError *e = NULL;
        gst_structure_get(reply, "error", G_TYPE_ERROR, &e, NULL);
        gchar *text = g_strdup_printf("%s failed: %s", step, e != NULL ? e->message : "unknown error");
        g_clear_error(&e);
        return text;
    }
    return NULL;
}

// Each sink pad's transceiver is told the codec it sends: before the first frame the
// pads' caps are not fixed, and webrtcbin would match no codec of the offer to them.
static void plumb_webrtc_prefer(GstElement *webrtcbin, GstCaps *caps) {
    GstIterator *pads = gst_element_iterate_sink_pads(webrtcbin);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(pads, &item) == GST_ITERATOR_OK) {
        GObject *transceiver = NULL;
        g_object_get(g_value_get_object(&item), "transceiver", &transceiver, NULL);
        if (transceiver != NULL) {
            g_object_set(transceiver, "codec-preferences", caps, NULL);
            g_object_unref(transceiver);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(pads);
}

gchar *plumb_webrtc_answer(GstElement *webrtcbin, const gchar *offer_sdp,
                           const gchar *codec_caps, guint timeout_ms, gchar **error) {
    *error = NULL;
    GType box = g_type_from_name("GstWebRTCSessionDescription");
    if (box == 0) {
        *error = g_strdup("webrtcbin is not loaded (GstWebRTCSessionDescription is unknown)");
        return NULL;
    }
    GstCaps *caps = gst_caps_from_string(codec_caps);
    if (caps == NULL) {
        *error = g_strdup_printf("the codec caps \"%s\" do not parse", codec_caps);
        return NULL;
    }
    plumb_webrtc_prefer(webrtcbin, caps);
    gst_caps_unref(caps);

    PlumbSDP sdps;
    if (!plumb_sdp(&sdps, error)) return NULL;
    GstSDPMessage *sdp = NULL;
    if (sdps.new_from_text(offer_sdp, &sdp) != GST_SDP_OK || sdp == NULL) {
        *error = g_strdup("the offer is not SDP");
        return NULL;
    }
    PlumbSessionDescription local = { PLUMB_SDP_TYPE_OFFER, sdp };
    PlumbSessionDescription *offer = g_boxed_copy(box, &local);
    sdps.free(sdp);

    GstPromise *promise = gst_promise_new();
    g_signal_emit_by_name(webrtcbin, "set-remote-description", offer, promise);
    *error = plumb_promise_error(promise, "setting the offer");
    gst_promise_unref(promise);
    g_boxed_free(box, offer);
    if (*error != NULL) return NULL;

    promise = gst_promise_new();
    g_signal_emit_by_name(webrtcbin, "create-answer", NULL, promise);
    *error = plumb_promise_error(promise, "creating the answer");
    PlumbSessionDescription *answer = NULL;
    if (*error == NULL) {
        const GstStructure *reply = gst_promise_get_reply(promise);
        const GValue *value = reply != NULL ? gst_structure_get_value(reply, "answer") : NULL;
        if (value != NULL) answer = g_value_dup_boxed(value);
        if (answer == NULL) *error = g_strdup("webrtcbin made no answer");
    }
    gst_promise_unref(promise);
    if (*error != NULL) return NULL;

    promise = gst_promise_new();
    g_signal_emit_by_name(webrtcbin, "set-local-description", answer, promise);
    *error = plumb_promise_error(promise, "setting the answer");
    gst_promise_unref(promise);
    g_boxed_free(box, answer);
    if (*error != NULL) return NULL;

    // Non-trickle: the answer must carry the candidates. Host candidates take
    // milliseconds; a STUN server up to its time-out.
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    for (;;) {
        gint state = 0;
        g_object_get(webrtcbin, "ice-gathering-state", &state, NULL);
        if (state == PLUMB_ICE_GATHERING_COMPLETE) break;
        if (g_get_monotonic_time() > deadline) break;  // answer with what was gathered
        g_usleep(5000);
    }

    PlumbSessionDescription *description = NULL;
    g_object_get(webrtcbin, "local-description", &description, NULL);
    if (description == NULL || description->sdp == NULL) {
        if (description != NULL) g_boxed_free(box, description);
        *error = g_strdup("webrtcbin has no local description");
        return NULL;
    }
    gchar *text = sdps.as_text(description->sdp);
    g_boxed_free(box, description);
    return text;
}

gboolean plumb_event_is_force_key_unit(GstEvent *event) {
    return gst_video_event_is_force_key_unit(event);
}

typedef struct {
    guint8 id;
    guint8 value;
} PlumbOneByteExtension;

static void plumb_rtp_add_onebyte_extension(GstBuffer *buffer, const PlumbOneByteExtension *extension) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    if (!gst_rtp_buffer_map(buffer, GST_MAP_READWRITE, &rtp)) return;
    gpointer present = NULL;
    guint size = 0;
    if (!gst_rtp_buffer_get_extension_onebyte_header(&rtp, extension->id, 0, &present, &size)) {
        gst_rtp_buffer_add_extension_onebyte_header(&rtp, extension->id, &extension->value, 1);
    }
    gst_rtp_buffer_unmap(&rtp);
}

static gboolean plumb_rtp_list_add_onebyte_extension(GstBuffer **buffer, guint index, gpointer data) {
    (void)index;
    *buffer = gst_buffer_make_writable(*buffer);
    plumb_rtp_add_onebyte_extension(*buffer, data);
    return TRUE;
}

void plumb_rtp_probe_add_onebyte_extension(GstPadProbeInfo *info, guint8 id, guint8 value) {
    PlumbOneByteExtension extension = { id, value };
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
        GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
        GST_PAD_PROBE_INFO_DATA(info) = buffer;
        plumb_rtp_add_onebyte_extension(buffer, &extension);
    } else if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
        GstBufferList *list = gst_buffer_list_make_writable(GST_PAD_PROBE_INFO_BUFFER_LIST(info));
        GST_PAD_PROBE_INFO_DATA(info) = list;
        gst_buffer_list_foreach(list, plumb_rtp_list_add_onebyte_extension, &extension);
    }
}
