// Apart from CGStreamerShim.c: <linux/tcp.h> must not meet glibc's <netinet/tcp.h>.
#include <errno.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "CGStreamerShim.h"

int plumb_tcp_send_queue(int fd, guint64 *acked, guint32 *queued) {
  struct tcp_info info = {0};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
  // A kernel older than 4.1 fills less of the struct.
  if (length < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof info.tcpi_bytes_acked) {
    errno = ENOTSUP;
    return -1;
  }
  int outq = 0;
  if (ioctl(fd, SIOCOUTQ, &outq) != 0) return -1;
  *acked = info.tcpi_bytes_acked;
  *queued = outq > 0 ? (guint32)outq : 0;
  return 0;
}
