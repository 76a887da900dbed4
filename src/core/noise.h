/* Noise sensors: what else happened on the machine during one repetition
 * (docs/methodology.md, "Noise sensors"). Read before and after it from
 * /proc/stat, getrusage() and cpufreq; a repetition past the documented
 * thresholds is marked busy. */
#ifndef VMB_NOISE_H
#define VMB_NOISE_H

#include <stdbool.h>
#include <stddef.h>

/* Thresholds (documented in docs/methodology.md). */
#define NOISE_OTHER_CPU_PCT 10.0 /* other processes' CPU time, % of the CPUs in use */
#define NOISE_STEAL_PCT 2.0      /* time the hypervisor gave the vCPUs to others, % of the CPUs in use */
#define NOISE_MAJFLT 10          /* major page faults in one repetition */

struct noise_snap {
	double wall;                    /* monotonic seconds */
	unsigned long long busy, steal; /* jiffies over the CPUs in use (busy: user, nice, system) */
	unsigned long long irq;         /* irq and softirq jiffies: not another process's */
	bool have_stat;
	double own_cpu_s;               /* this process, user + system */
	long nivcsw, majflt;
};

struct noise_reading {
	double start;         /* epoch seconds at the repetition's start */
	double other_cpu_pct; /* NAN when /proc/stat is unreadable */
	double steal_pct;
	double irq_pct;       /* interrupts and softirqs, mostly the work our own I/O causes: not judged */
	long nivcsw, majflt;
	double mhz;           /* mean scaling_cur_freq of the CPUs in use; NAN when unreadable */
	bool busy;
};

/* cpus (NULL: every CPU) are the CPUs the repetition may use. */
void noise_begin(struct noise_snap *s, const unsigned *cpus, size_t ncpus);
void noise_end(const struct noise_snap *s, const unsigned *cpus, size_t ncpus, double start_epoch,
	       struct noise_reading *out);
/* Pure: the reading from two snapshots (what the unit tests drive). */
void noise_judge(const struct noise_snap *a, const struct noise_snap *b, size_t ncpus, long hz,
		 struct noise_reading *out);
/* Parse /proc/stat text: busy (user, nice, system), irq (irq and softirq)
 * and steal jiffies summed over the CPUs given (NULL: the aggregate "cpu"
 * line). 0, or -EINVAL. */
int noise_parse_stat(const char *text, const unsigned *cpus, size_t ncpus, unsigned long long *busy,
		     unsigned long long *irq, unsigned long long *steal);

#endif
