/* Fuzz target: the scheduling suite's reading of /proc/self/mountinfo and
 * /proc/self/cgroup (the input is both, split at the first NUL byte), and
 * the plans built from whatever layout it accepts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned weights[] = { 1, 3 };
	const uint8_t *nul = memchr(data, 0, size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	char *mi = malloc(n1 + 1), *self = malloc(size - n1 + 1);
	struct cg_layout l;

	if (!mi || !self)
		goto out;
	memcpy(mi, data, n1);
	mi[n1] = '\0';
	if (nul)
		memcpy(self, nul + 1, size - n1 - 1);
	self[nul ? size - n1 - 1 : 0] = '\0';
	if (cg_detect(mi, self, &l) == 0) {
		struct cg_plan p;

		l.rt_group = size & 1;
		cg_plan_init(&p);
		(void)cg_plan_create(&p, &l, 4242, 2, 100000);
		(void)cg_plan_mode(&p, &l, 4242, CG_RESERVATION, weights, 2, 10000);
		(void)cg_plan_remove(&p, &l, 4242, 2);
		cg_plan_release(&p);
	}
out:
	free(mi);
	free(self);
	return 0;
}
