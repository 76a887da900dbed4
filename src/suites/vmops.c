/* vmops suite: what a hypervisor's operations on a running VM cost it
 * (live migration, save and restore, a disk snapshot). The host drives and times them
 * through QMP, moving the guest from one QEMU to another, so only the lab
 * (src/lab/vmops.c) can measure it: here it is declared like any suite,
 * its tests, options and headline, and says why it does not run anywhere
 * else. docs/methodology.md defines what is timed. */
#include <stddef.h>

#include "vmops.h"
#include "../core/banned.h"

static const char vmops_why[] = "a VM is migrated, saved and restored by its host: 'vmbench lab run --suites vmops' "
				"measures it";

static int vmops_supported(const struct vmb_env *env, const char **why)
{
	(void)env;
	*why = vmops_why;
	return 0;
}


static const struct vmb_test vmops_tests[] = {
	{ .name = VMOPS_TEST_MIGRATE, .summary = "live migration to a second QEMU on this host (a Unix socket): total time, "
					"downtime, RAM moved, passes; one case per --vmops.mode and --vmops.load",
	  .headline = VMOPS_TOTAL "," VMOPS_DOWNTIME, .params = "mode,load,bandwidth,postcopy-after" },
	{ .name = VMOPS_TEST_SAVERESTORE, .summary = "stop, save the VM's state to a file, restore it in a new QEMU, resume: "
					    "seconds each and the state's size",
	  .headline = VMOPS_SAVE "," VMOPS_RESTORE, .params = "bandwidth" },
	{ .name = VMOPS_TEST_SNAPSHOT, .summary = "external snapshot of the scratch disk (a qcow2 overlay) and its commit back: "
					 "seconds each, and " VMOPS_WRITE "'s figures before and after it (copy-on-write)",
	  .headline = VMOPS_CREATE "," VMOPS_COMMIT },
	{ .name = VMOPS_TEST_SAVEVM, .summary = "internal snapshot of the whole VM (HMP savevm into the qcow2 scratch disk: "
				       "--disk-format qcow2) and the revert to it (loadvm): seconds each",
	  .headline = VMOPS_SAVEVM "," VMOPS_LOADVM },
	{ .name = NULL },
};

static const struct vmb_opt vmops_opts[] = {
	{ .name = "mode", .type = OPT_STRING, .def = "precopy", .metavar = "MODE", .choices = "precopy|postcopy|both",
	  .help = "migrate: pre-copy (RAM copied while the guest runs, then the rest with the guest stopped), "
		  "post-copy (switched to after the first pass: the guest runs on the destination, which fetches "
		  "the pages it still lacks), or both, a case each" },
	{ .name = "load", .type = OPT_STRING, .def = "idle", .metavar = "LOAD", .choices = "idle|mem|clock|both|all",
	  .help = "migrate: what the guest does meanwhile: nothing, " VMOPS_LOAD " writing its memory, or "
		  VMOPS_CLOCK "'s loop reading the guest's clock (its largest gap: the pause the guest saw, by its "
		  "own clock); both: idle and mem, all: the three, a case each" },
	{ .name = "bandwidth", .type = OPT_SIZE, .min = 0, .max = 1ull << 40, .def = "0", .metavar = "BYTES",
	  .help = "the migration's bandwidth limit per second (QMP max-bandwidth); 0: none (QEMU's own default "
		  "is 128 MiB/s)" },
	{ .name = "postcopy-after", .type = OPT_INT, .min = 0, .max = 100, .def = "1", .metavar = "PASSES",
	  .help = "migrate, post-copy: the pre-copy passes before the switch (QMP migrate-start-postcopy); 0: at "
		  "once. A pre-copy that converges first ends as a pre-copy (its postcopy_bytes 0)" },
	{ .name = "timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "60", .quick = "30", .metavar = "SECONDS",
	  .help = "how long a migration, a save or a restore may take: one not done by then is cancelled and "
		  "fails its test (a pre-copy that does not converge)" },
	OPT_TABLE_END,
};

const struct vmb_suite vmops_suite = {
	.name = "vmops",
	.summary = "live migration (pre-copy, post-copy), save and restore, disk snapshot and commit, savevm and loadvm "
		   "of a running guest (measured by 'vmbench lab run' only)",
	.abi = VMB_SUITE_ABI,
	.flags = VMB_SUITE_LAB_ONLY,
	.tests = vmops_tests,
	.opts = vmops_opts,
	.supported = vmops_supported,
	/* in the order of struct lab_vmops's load_opts, write_opts, clock_opts */
	.host = &(const struct vmb_host_needs){ .loads = { VMOPS_LOAD, VMOPS_WRITE, VMOPS_CLOCK } },
};
