/* Facts about this process and the clock: usable CPUs, wall time. */
#include <errno.h>
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

/* n decimal digits at *s, advanced past them, within [lo, hi] */
static bool take_digits(const char **s, int n, int lo, int hi, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	if (out)
		*out = v;
	return v >= lo && v <= hi;
}

/* Seconds since 1970 of a calendar time in UTC (days_from_civil: the
 * proleptic Gregorian calendar) */
static double civil_seconds(long y, long mo, long d, long h, long mi, double sec)
{
	long era, yoe, doy, doe;

	y -= mo <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (double)(era * 146097 + doe - 719468) * 86400.0 + (double)h * 3600.0 + (double)mi * 60.0 + sec;
}

int parse_utc(const char *s, double *epoch_s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	double frac = 0, scale = 0.1;

	if (!s || !take_digits(&s, 4, 0, 9999, &y) || *s++ != '-' || !take_digits(&s, 2, 1, 12, &mo) ||
	    *s++ != '-' || !take_digits(&s, 2, 1, mdays[mo - 1], &d) ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return -EINVAL;
	if ((*s != 'T' && *s != 't') || !++s || !take_digits(&s, 2, 0, 23, &h) || *s++ != ':' ||
	    !take_digits(&s, 2, 0, 59, &mi) || *s++ != ':' || !take_digits(&s, 2, 0, 60, &sec))
		return -EINVAL;
	if (*s == '.') {
		if (!(s[1] >= '0' && s[1] <= '9'))
			return -EINVAL;
		for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
			frac += (*s - '0') * scale;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '+' ? 1 : -1;
		if (!take_digits(&s, 2, 0, 23, &oh) || *s++ != ':' || !take_digits(&s, 2, 0, 59, &om))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	if (epoch_s)
		*epoch_s = civil_seconds(y, mo, d, h, mi, sec + frac) - sign * (double)(oh * 3600 + om * 60);
	return 0;
}

double wall_time_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC_PER_SEC;
}
