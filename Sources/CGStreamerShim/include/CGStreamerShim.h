// The C shim: only what Swift cannot reach in GLib/GStreamer headers.
// Every symbol is prefixed `plumb_`. Each entry says why it exists; when Swift's
// importer learns to handle the construct, the entry can go.
#pragma once
#include <gst/gst.h>
#include <linux/videodev2.h>

// --- GType fundamentals ---------------------------------------------------
// G_TYPE_BOOLEAN and friends are macro expressions (G_TYPE_MAKE_FUNDAMENTAL);
// the importer drops them.
GType plumb_type_boolean(void);
GType plumb_type_int(void);
GType plumb_type_uint(void);
GType plumb_type_long(void);
GType plumb_type_ulong(void);
GType plumb_type_int64(void);
GType plumb_type_uint64(void);
GType plumb_type_float(void);
GType plumb_type_double(void);
GType plumb_type_string(void);
GType plumb_type_enum(void);
GType plumb_type_flags(void);

/// G_OBJECT_TYPE(instance): a cast-and-field macro.
GType plumb_object_type(gpointer instance);

/// g_object_class_find_property(G_OBJECT_GET_CLASS(object), name): the class
/// lookup is a macro. Returns NULL when the property does not exist.
GParamSpec *plumb_object_find_property(gpointer object, const gchar *name);

// --- Bus watch --------------------------------------------------------------
/// gst_bus_create_watch + g_source_set_callback + g_source_attach. A bus source
/// calls its callback as a GstBusFunc (bus, message, user_data; runs on the thread
/// iterating `context`; return FALSE to remove the watch), but g_source_set_callback
/// takes a GSourceFunc: a function-pointer cast Swift cannot express.
/// Returns the attached source (caller owns one reference; destroy it to stop).
GSource *plumb_bus_watch_attach(GstBus *bus, GMainContext *context, GstBusFunc func,
                                gpointer user_data, GDestroyNotify notify);

// --- Signals ---------------------------------------------------------------
// g_signal_connect is a macro over g_signal_connect_data, whose GCallback needs
// a cast per handler signature: one trampoline per signature we use.

/// Any signal whose handler takes (instance, one pointer argument, user_data):
/// "pad-added", gst-rtsp-server's "client-connected", "media-configure", "play-request" ...
typedef void (*PlumbPointerSignalFunc)(gpointer instance, gpointer argument, gpointer user_data);
gulong plumb_signal_connect_pointer(gpointer instance, const gchar *signal, PlumbPointerSignalFunc func,
                                    gpointer user_data, GDestroyNotify notify);

/// Any signal whose handler takes (instance, user_data): "closed", "unprepared" ...
typedef void (*PlumbVoidSignalFunc)(gpointer instance, gpointer user_data);
gulong plumb_signal_connect_void(gpointer instance, const gchar *signal, PlumbVoidSignalFunc func,
                                 gpointer user_data, GDestroyNotify notify);

// --- Tracers ----------------------------------------------------------------
/// The active `leaks` tracer's "get-live-objects" action signal: emitted with
/// g_signal_emit_by_name, a varargs function. Returns the "live-objects-info"
/// structure (field "live-objects-list": a list of "object-alive" structures with
/// "object" and "ref-count") for the caller to free, or NULL when GST_TRACERS does
/// not include leaks.
///
/// GStreamer 1.22's signal hands over references it never took (it is meant for
/// the end of a program, when every live object is a leak): freeing its answer
/// as-is would unref every live object once more. This wrapper clears each
/// "object" value's pointer first, so the answer only describes the objects (the
/// value keeps its GType; "ref-count" is a copy) and freeing it is harmless.
/// Call it while nothing streams: an object released during the call can still
/// be touched by the tracer itself.
GstStructure *plumb_leaks_tracer_live_objects(void);

// --- TCP send queue ----------------------------------------------------------
/// How much of what a TCP socket was given has left it: `acked` is every byte the
/// peer has acknowledged so far (TCP_INFO's tcpi_bytes_acked), `queued` the bytes still
/// waiting in the kernel, unsent or unacknowledged (SIOCOUTQ). For telling a consumer
/// that stopped reading (nothing acknowledged while data waits) from a slow one.
/// tcpi_bytes_acked is only in <linux/tcp.h>, whose struct glibc's <netinet/tcp.h>
/// redeclares without it, and ioctl is variadic. Returns 0, or -1 with errno set.
int plumb_tcp_send_queue(int fd, guint64 *acked, guint32 *queued);

// --- V4L2 controls (V4L2Control.c) -------------------------------------------
/// VIDIOC_QUERYCTRL for one control of a V4L2 device (ioctl is variadic): 1 with its range
/// when the device has it enabled, 0 when not, -1 when the device cannot be opened.
int plumb_v4l2_query_control(const char *device, guint32 id, gint32 *minimum, gint32 *maximum,
                             gint32 *step, gint32 *fallback);
/// ioctl on `fd` (variadic in C, so Swift cannot call it): 0, or -errno on failure
/// (errno itself is not reliably readable from Swift after the call returns).
int plumb_ioctl(int fd, unsigned long request, void *arg);
/// The control requests of <linux/videodev2.h>: _IOWR expressions the importer drops.
/// Their argument structs (v4l2_query_ext_ctrl, v4l2_querymenu, v4l2_ext_controls) import.
extern const unsigned long plumb_vidioc_query_ext_ctrl;
extern const unsigned long plumb_vidioc_querymenu;
extern const unsigned long plumb_vidioc_g_ext_ctrls;
extern const unsigned long plumb_vidioc_try_ext_ctrls;
extern const unsigned long plumb_vidioc_s_ext_ctrls;
/// VIDIOC_QUERYCAP on an open node: 1 when it captures video (single- or multi-planar),
/// 0 when not or when it is no V4L2 device at all (/dev/null, /dev/zero: the ioctl fails).
int plumb_v4l2_is_video_capture(int fd);

// --- webrtcbin (WebRTC.c) -----------------------------------------------------
/// The offer/answer of one webrtcbin as one blocking call: `codec_caps` (application/x-rtp
/// caps) set as every sink pad's transceiver's codec-preferences, set-remote-description
/// (the offer), create-answer, set-local-description, and a wait until ICE gathering is
/// complete so the answer holds every candidate (non-trickle WHEP). Its signals take
/// GstPromise callbacks and GstWebRTCSessionDescription boxes, which Swift cannot build.
/// Call it off any thread webrtcbin needs (never a streaming thread), with the element
/// playing. Returns the answer's SDP text (g_free it), or NULL with `*error` set to a
/// sentence (g_free it).
gchar *plumb_webrtc_answer(GstElement *webrtcbin, const gchar *offer_sdp,
                           const gchar *codec_caps, guint timeout_ms, gchar **error);

/// Whether `event` is an upstream force-key-unit request (a viewer's PLI/FIR):
/// gst_video_event_is_force_key_unit, kept here beside its only user.
gboolean plumb_event_is_force_key_unit(GstEvent *event);

/// Adds an RTP header extension in the one-byte form (RFC 8285): element `id` (1 to 14)
/// holding the single byte `value`, to the RTP packet, or to every packet of the list, that
/// a buffer (list) probe carries — made writable first, with the probe's data pointed at
/// the copy when one was needed. What a GstRTPHeaderExtension would do where GStreamer has
/// none for the URI (urn:3gpp:video-orientation in 1.22); GstRTPBuffer's map and the list's
/// foreach callback take C structs and function pointers. Packets already holding `id` are
/// left alone.
void plumb_rtp_probe_add_onebyte_extension(GstPadProbeInfo *info, guint8 id, guint8 value);
