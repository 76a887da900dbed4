/* The stop request: set by a signal handler, read by loops that end early. */
#include <signal.h>

#include "stop.h"
#include "banned.h"

static volatile sig_atomic_t stop_flag;

bool vmb_stop_requested(void)
{
	return stop_flag != 0;
}

void vmb_request_stop(void)
{
	stop_flag = 1;
}

void vmb_stop_clear(void)
{
	stop_flag = 0;
}
