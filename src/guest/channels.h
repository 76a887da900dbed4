/* The guest's side of the queues key: the queue pairs the host asks for on
 * the kernel command line (vmbench.queues=N), set on the guest's NICs by
 * the agent before HELLO, as `ethtool -L DEV combined N` sets them. */
#ifndef VMB_CHANNELS_H
#define VMB_CHANNELS_H

#include <stddef.h>

/* The N of a "vmbench.queues=N" word of a kernel command line (from 1 to
 * 256): 0, -ENOENT when there is none, -EINVAL when N is no such count. */
int lab_cmdline_queues(const char *cmdline, size_t len, unsigned *out);
/* Every NIC that has room for n combined channels gets n
 * (ETHTOOL_SCHANNELS); 0, or a negative errno with why. */
int lab_set_queues(unsigned n, char *why, size_t len);

#endif
