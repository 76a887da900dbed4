/* Fuzz target: the readers of /proc counters: noise_parse_stat, /proc/stat
 * for the noise sensors, and contend_parse_schedstat, a thread's schedstat
 * for lab contend; and what tells a leftover's owner (src/core/reclaim.h):
 * /proc/PID/stat, a work directory's marker, a leftover's name (one target:
 * the same kind of text, no time added). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/noise.h"
#include "../../src/core/reclaim.h"
#include "../../src/lab/contend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned cpus[] = { 0, 1, 3 };
	char *text = malloc(size + 1);
	unsigned long long busy, irq, steal;
	struct contend_sched ss;
	struct reclaim_owner o;
	unsigned long long start;
	char state;
	pid_t pid;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)noise_parse_stat(text, NULL, 0, &busy, &irq, &steal);
	(void)noise_parse_stat(text, cpus, 3, &busy, &irq, &steal);
	(void)contend_parse_schedstat(text, &ss);
	(void)reclaim_parse_stat(text, &state, &start);
	(void)reclaim_parse_marker(text, &o);
	(void)reclaim_name_pid(text, "vmbench-disk-", &pid);
	free(text);
	return 0;
}
