/* Fuzz target: what sched.quota reads as text: a group's cpu.stat and
 * cpu.max (cg_parse_cpu_stat, cg_parse_cpu_max), the ctxt line of
 * /proc/stat (sched_parse_ctxt), and --sched.quota-cpus's list
 * (sched_quota_parse) with the knobs made of what it accepts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/cgroup.h"
#include "../../src/suites/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	unsigned long long q, p, ctxt;
	struct cg_knob k[CG_MAX_GROUPS];
	double cpus[CG_MAX_GROUPS];
	struct cg_cpu_stat st;
	size_t n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)cg_parse_cpu_stat(text, &st);
	(void)cg_parse_cpu_max(text, &q, &p);
	(void)sched_parse_ctxt(text, &ctxt);
	if (sched_quota_parse(text, cpus, CG_MAX_GROUPS, &n) == 0) {
		(void)sched_quota_knobs(cpus, n, 100000, k);
		(void)sched_quota_knobs(cpus, n, 1000, k);
		for (size_t i = 0; i < n; i++)
			(void)sched_quota_interval_ns(cpus[i], 80, 2, 1000);
	}
	free(text);
	return 0;
}
