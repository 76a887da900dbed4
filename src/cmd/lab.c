/* vmbench lab: the QEMU lab, a command of verbs, one file each: image
 * (lab_image.c), run (lab_run.c), contend (lab_contend.c), report
 * (lab_report.c), study (lab_study.c). Which verb takes which option is
 * said by the verbs' tables alone: lab's help and man page list every
 * option with the verbs that take it, and a verb refuses a sibling's
 * option naming the verbs that take it (common.c). */
#include <stddef.h>

#include "cmd.h"
#include "lab.h"
#include "../core/banned.h"

/* lab's own: what comes before a verb (lab --help) */
static const struct vmb_opt lab_opts[] = {
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

/* In lab's usage order: the help's "image, run: ..." follow it */
static const struct vmb_cmd *const lab_verbs[] = { &cmd_lab_image_desc, &cmd_lab_run_desc, &cmd_lab_contend_desc,
						   &cmd_lab_report_desc, &cmd_lab_study_desc, NULL };

const struct vmb_cmd cmd_lab_desc = {
	.name = "lab",
	.fn = cmd_dispatch,
	.args = "image | run --matrix SPEC | contend --matrix SPEC --guests N --policy LIST | report [SELECTOR] | study FILE [--plan] | study --list",
	.summary = "the QEMU lab: guest image, matrix runs under QEMU, configurations compared with each other",
	.description = "The image is Debian's kernel (fetched once with apt-get download into the cache), an "
		       "initramfs with a static busybox, the kernel modules of every supported disk controller and "
		       "NIC with their dependencies, this vmbench binary with its shared libraries, and an init "
		       "that loads the drivers and starts 'vmbench agent' on /dev/hvc0. It is rebuilt only when "
		       "an input changed. 'lab run' boots every configuration of --matrix, times the boot phases, "
		       "runs --suites in the guest on a scratch disk behind the configuration's controller (or on a shared folder, share=), "
		       "measures the host, stores each result with the matrix keys and the session as labels "
		       "(lab=ID, printed at the start and the end), prints the comparison against --baseline (the "
		       "host, or a configuration: the host then beside them) and writes the HTML report, whose "
		       "first sentence gives the ratio between the configurations. 'lab report' redraws the last "
		       "session from the store; 'lab report SELECTOR' the last session among the runs with those "
		       "labels (lab=ID, or matrix keys such as disk=ide), with that session's host. 'lab study FILE' (or "
		       "NAME of 'lab study --list') runs a published study's experiments, each a lab run, and prints "
		       "and writes its tables with the study's figures beside and whether each of its conclusions "
		       "holds here (docs/study-format.md); --plan shows them first and runs nothing. Guests are "
		       "x86_64 or aarch64 (--arch, or the matrix key arch); a guest of another architecture than "
		       "the host's is emulated (TCG). 'lab contend' boots --guests of one configuration at once, "
		       "each QEMU in a cgroup of its own under vmbench-contend-PID, and for every policy of --policy "
		       "and load of --load (cells shuffled per round) runs --suites on all of them together; each "
		       "guest's document has the host's view (the contend suite: CPU share of its vCPU threads "
		       "against the share promised, run delay from schedstat, Jain's index) and the labels policy=, "
		       "guest=, load=. A net item (net.udp_rr) is measured from the host to each guest at once: the "
		       "host's client in each guest's network namespace against the guest's vmbench serve "
		       "(netdir=guest-server; a guest gets nic=virtio-net unless --matrix names a NIC), the guest "
		       "under its load (the agent's LOAD) meanwhile. Linux has no hard CPU reservation: "
		       "reservation caps the other guests. Every "
		       "cgroup, priority and QEMU is undone on every exit path; a policy this process has no "
		       "permission for is skipped with the reason. "
		       "Every guest and the host "
		       "measure with the options of 'vmbench run' given here (--time, --threads, --precision, "
		       "--repeat... and every --SUITE.OPTION of 'vmbench list'), checked before anything is "
		       "built or booted, and record them as a native run does; the options that would name the "
		       "host's paths or the lab's own plumbing are not taken (listed below, each with why). On a "
		       "terminal the guest's progress is drawn as 'run' draws its own.",
	.opts = lab_opts,
	.subcmds = lab_verbs,
	.min_args = 1,
	.max_args = CMD_ARGS_ANY,
};

