/* The stop request: set by a signal handler, read by loops that end early. */
#ifndef VMB_STOP_H
#define VMB_STOP_H

#include <stdbool.h>

/* True once Ctrl-C (or SIGTERM) was received: loops end early. */
bool vmb_stop_requested(void);
void vmb_request_stop(void); /* async-signal-safe */
/* Forget a request: for a process that measures again after one (tests). */
void vmb_stop_clear(void);

#endif
