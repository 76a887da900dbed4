/* Which machine `run` fingerprints and whose caches the memory suite sizes
 * its buffers by: this one. The uninstalled test build (vmbench-inject in
 * tests/meson.build) compiles this file again with -DVMB_PROBE_MACHINE_ENV,
 * so that VMBENCH_TEST_MACHINE=DIR points both at a recorded machine (a
 * tree as `info --root` takes, with its .cpuid and .sysconf): the CLI tests
 * run the quick suites against machines this host is not. The installed
 * binary has no such hook. */
#include <stdlib.h>

#include "probe.h"
#include "../core/banned.h"

const char *probe_machine_root(void)
{
#ifdef VMB_PROBE_MACHINE_ENV
	const char *e = getenv("VMBENCH_TEST_MACHINE");

	if (e && *e)
		return e;
#endif
	return "/";
}
