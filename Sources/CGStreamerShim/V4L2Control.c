#include "CGStreamerShim.h"
#include <fcntl.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <unistd.h>

int plumb_v4l2_query_control(const char *device, guint32 id, gint32 *minimum, gint32 *maximum,
                             gint32 *step, gint32 *fallback) {
  int fd = open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct v4l2_queryctrl q = {.id = id};
  int found = ioctl(fd, VIDIOC_QUERYCTRL, &q) == 0 && !(q.flags & V4L2_CTRL_FLAG_DISABLED);
  close(fd);
  if (!found) return 0;
  *minimum = q.minimum;
  *maximum = q.maximum;
  *step = q.step;
  *fallback = q.default_value;
  return 1;
}

int plumb_v4l2_is_video_capture(int fd) {
  struct v4l2_capability cap = {0};
  if (ioctl(fd, VIDIOC_QUERYCAP, &cap) != 0) return 0;
  guint32 caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
  return (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)) != 0;
}
