#include "CGStreamerShim.h"
#include <errno.h>
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

int plumb_ioctl(int fd, unsigned long request, void *arg) {
  int result;
  do result = ioctl(fd, request, arg);
  while (result != 0 && errno == EINTR);
  return result == 0 ? 0 : -errno;
}

const unsigned long plumb_vidioc_query_ext_ctrl = VIDIOC_QUERY_EXT_CTRL;
const unsigned long plumb_vidioc_querymenu = VIDIOC_QUERYMENU;
const unsigned long plumb_vidioc_g_ext_ctrls = VIDIOC_G_EXT_CTRLS;
const unsigned long plumb_vidioc_try_ext_ctrls = VIDIOC_TRY_EXT_CTRLS;
const unsigned long plumb_vidioc_s_ext_ctrls = VIDIOC_S_EXT_CTRLS;
