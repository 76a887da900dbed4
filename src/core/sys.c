/* Facts about this process and the clock: usable CPUs, wall time. */
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "clock.h"
#include "banned.h"

/* vmbench-static's main.c defines it true; every other binary takes this */
__attribute__((weak)) const bool vmb_static_build = false;

unsigned cpus_available(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

void format_utc(double epoch_s, char *buf, size_t len)
{
	time_t t = (time_t)epoch_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double wall_time_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC_PER_SEC;
}
