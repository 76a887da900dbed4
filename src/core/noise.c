/* Noise sensors. Other processes' CPU time is the busy time of the CPUs in
 * use (/proc/stat's user, nice and system) minus this process's own
 * (getrusage): what is left ran for someone else while we measured.
 * Interrupts and softirqs are not in it: a disk or network test's
 * completions mostly arrive while its CPU waits idle and are charged to no
 * process, so counted as another's load they would mark a repetition busy
 * by the work of its own I/O, more for a device model whose completions
 * cost more (in a guest, which sees no other process of the host, nothing
 * else could; issue 44). They are recorded apart, as irq_pct. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "noise.h"
#include "clock.h"
#include "file.h"
#include "banned.h"

static bool cpu_wanted(unsigned cpu, const unsigned *cpus, size_t ncpus)
{
	for (size_t i = 0; i < ncpus; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

int noise_parse_stat(const char *text, const unsigned *cpus, size_t ncpus, unsigned long long *busy,
		     unsigned long long *irq, unsigned long long *steal)
{
	unsigned long long b = 0, in = 0, st = 0;
	bool found = false;

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long v[10] = { 0 };
		unsigned cpu = 0;
		int n, used = 0;
		bool aggregate = !strncmp(line, "cpu ", 4);

		if (strncmp(line, "cpu", 3))
			continue;
		if (!aggregate && sscanf(line, "cpu%u%n", &cpu, &used) != 1)
			continue;
		if (cpus ? aggregate || !cpu_wanted(cpu, cpus, ncpus) : !aggregate)
			continue;
		n = sscanf(line + (aggregate ? 3 : used), "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
		if (n < 4)
			return -EINVAL;
		/* user nice system idle iowait irq softirq steal (guest is in user) */
		b += v[0] + v[1] + v[2];
		in += v[5] + v[6];
		st += n >= 8 ? v[7] : 0;
		found = true;
	}
	if (!found)
		return -EINVAL;
	*busy = b;
	*irq = in;
	*steal = st;
	return 0;
}

void noise_begin(struct noise_snap *s, const unsigned *cpus, size_t ncpus)
{
	struct rusage ru;
	char *text = NULL;

	memset(s, 0, sizeof(*s));
	if (read_file("/proc/stat", &text) == 0)
		s->have_stat = noise_parse_stat(text, cpus, ncpus, &s->busy, &s->irq, &s->steal) == 0;
	free(text);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		s->own_cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
			       ru.ru_stime.tv_usec / 1e6;
		s->nivcsw = ru.ru_nivcsw;
		s->majflt = ru.ru_majflt;
	}
	/* children that ended (a lab's QEMU) ran for us, not for someone else */
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		s->own_cpu_s += (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
				ru.ru_stime.tv_usec / 1e6;
	s->wall = clock_s();
}

void noise_judge(const struct noise_snap *a, const struct noise_snap *b, size_t ncpus, long hz,
		 struct noise_reading *out)
{
	double wall = b->wall - a->wall, cap = wall * (double)ncpus;

	out->other_cpu_pct = out->steal_pct = out->irq_pct = NAN;
	if (a->have_stat && b->have_stat && cap > 0 && hz > 0 && b->busy >= a->busy && b->steal >= a->steal &&
	    b->irq >= a->irq) {
		double busy_s = (double)(b->busy - a->busy) / (double)hz;
		double own = b->own_cpu_s - a->own_cpu_s;
		double other = busy_s - own;

		/* jiffies are coarse: a small negative remainder is rounding */
		out->other_cpu_pct = fmin(100, fmax(0, other / cap * 100));
		out->steal_pct = fmin(100, (double)(b->steal - a->steal) / (double)hz / cap * 100);
		out->irq_pct = fmin(100, (double)(b->irq - a->irq) / (double)hz / cap * 100);
	}
	out->nivcsw = b->nivcsw - a->nivcsw;
	out->majflt = b->majflt - a->majflt;
	out->busy = out->other_cpu_pct > NOISE_OTHER_CPU_PCT || out->steal_pct > NOISE_STEAL_PCT ||
		    out->majflt > NOISE_MAJFLT;
}

/* Mean current frequency of the CPUs in use, MHz; NAN when no CPU says. */
static double cur_mhz(const unsigned *cpus, size_t ncpus)
{
	double sum = 0;
	size_t n = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t count = cpus ? ncpus : (online > 0 ? (size_t)online : 0);

	for (size_t i = 0; i < count && i < 4096; i++) {
		char path[96], line[32], *end;
		double khz;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq",
			 cpus ? cpus[i] : (unsigned)i);
		if (read_line_at("/", path, line, sizeof(line)) < 0)
			continue;
		khz = strtod(line, &end);
		if (end == line || !isfinite(khz) || khz <= 0 || khz > 1e8)
			continue;
		sum += khz / 1000;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

void noise_end(const struct noise_snap *s, const unsigned *cpus, size_t ncpus, double start_epoch,
	       struct noise_reading *out)
{
	struct noise_snap e;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus ? ncpus : (online > 0 ? (size_t)online : 1);

	noise_begin(&e, cpus, ncpus);
	noise_judge(s, &e, n, sysconf(_SC_CLK_TCK), out);
	out->start = start_epoch;
	out->mhz = cur_mhz(cpus, ncpus);
}
