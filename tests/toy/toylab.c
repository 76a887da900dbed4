/* The toy lab rows: built only into the test build (tests/meson.build's
 * vmbench-toy and test_toylab, compiled with -DVMB_TEST_LAB), added the way
 * docs/extending.md adds a NIC model and a host-measured suite, so that
 * tests can see them planned and refused without booting. The NIC model
 * toy-nic is a row of LAB_DEVICES (src/lab/matrix.h, LAB_DEVICES_TEST);
 * the matrix key toy is a row of LAB_KEYS (LAB_KEYS_TEST) whose qemu
 * function, toy_qemu below, puts an SMBIOS string on the command line
 * with toy=on;
 * the host-measured suite toyhost is this descriptor, its row of
 * lab_host_rows (src/lab/hostmeasure.c) and the function below, which
 * reports the guest's vCPU count as the configuration says it, so that a
 * test knows the figure in advance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "toylab.h"
#include "../../src/core/result.h"
#include "../../src/core/stats.h"
#include "../../src/core/str.h"
#include "../../src/lab/hostmeasure.h"
#include "../../src/lab/hostsuite.h"
#include "../../src/lab/matrix.h"
#include "../../src/lab/qemu.h"
#include "../../src/core/banned.h"

int toy_qemu(struct lab_args *a, const struct lab_config *c, const struct lab_paths *p, char *why, size_t len)
{
	(void)p, (void)why, (void)len;
	if (strcmp(c->v[LAB_TOY], "on"))
		return 0;
	lab_push(a, "-smbios");
	lab_push(a, "%s", TOY_SMBIOS);
	return 0;
}

static int toyhost_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = "measured from outside a guest: 'vmbench lab run --suites toyhost'";
	return 0;
}

static const struct vmb_test toyhost_tests[] = {
	{ .name = "vcpus", .summary = "the configuration's smp, as the host reads it", .headline = "vcpus" },
	{ .name = NULL },
};

const struct vmb_suite toyhost_suite = {
	.name = "toyhost",
	.summary = "a toy host-measured suite (test build only): the configuration's vCPUs",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_LAB_ONLY,
	.tests = toyhost_tests,
	.supported = toyhost_supported,
};

int toyhost_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen)
{
	struct vmb_results res = { 0 };
	struct vmb_suite_result *s;
	struct vmb_test_result *tr;
	struct vmb_metric *m;

	if (lab_host_suite_begin(&res, &toyhost_suite, 1, &s) < 0)
		return errf(err, errlen, -ENOMEM, "out of memory");
	s->ntests = 1;
	tr = &s->tests[0];
	tr->name = xstrdup("vcpus");
	tr->cases = calloc(1, sizeof(*tr->cases));
	if (!tr->name || !tr->cases)
		goto fail;
	tr->ncases = 1;
	tr->cases[0].reps = 1;
	m = vmb_case_add_metric(&tr->cases[0], "vcpus", VMB_UNIT_NONE, VMB_HIGHER);
	if (!m || vmb_metric_push(m, rq->c->smp) < 0)
		goto fail;
	m->headline = true;
	stats_summarize(m->samples, m->n, &m->sum);
	*suite = lab_host_suite_end(&res);
	return *suite ? 0 : errf(err, errlen, -ENOMEM, "out of memory");
fail:
	vmb_results_release(&res);
	return errf(err, errlen, -ENOMEM, "out of memory");
}
