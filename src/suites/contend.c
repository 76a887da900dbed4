/* Contend suite: the host's view of a guest sharing the host with others
 * under a scheduling policy (`vmbench lab contend`). Measured from outside
 * the guest, so declared here and measured by src/lab/contend.c only;
 * docs/methodology.md defines the figures. */
#include <stddef.h>

#include "contend.h"
#include "../core/banned.h"

static const char contend_why[] = "a guest's share of the host is measured from outside it: 'vmbench lab contend' "
				  "measures it";

static int contend_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = contend_why;
	return 0;
}


static const struct vmb_test contend_tests[] = {
	{ .name = "share", .summary = "per guest and item: its vCPU threads' share of the host CPUs given, the share "
				      "the policy promised, their run delay (schedstat) per second and per timeslice, "
				      "and Jain's fairness index across the guests",
	  .headline = CONTEND_SHARE "," CONTEND_DELAY },
	{ .name = NULL },
};

const struct vmb_suite contend_suite = {
	.name = "contend",
	.summary = "several guests at once under a host scheduling policy: CPU share, promised share, run delay, "
		   "Jain's index (measured by 'vmbench lab contend' only)",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_LAB_ONLY,
	.tests = contend_tests,
	.supported = contend_supported,
	.load_metric = CONTEND_DELAY,
};
