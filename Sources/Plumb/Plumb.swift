import GStreamer
