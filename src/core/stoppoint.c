/* Named stop points: crash-safety tests stop the process at an exact moment
 * instead of sleeping. */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stoppoint.h"
#include "banned.h"

void vmb_test_stop_point(const char *point)
{
	static bool fired; /* once: a test harness waits for one stop */
	const char *at = getenv("VMBENCH_TEST_STOP_AT");

	if (!fired && at && !strcmp(at, point)) {
		fired = true;
		(void)raise(SIGSTOP);
	}
}
