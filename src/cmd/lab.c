/* vmbench lab: the QEMU lab: image, run, report. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include "cmd.h"
#include "run_opts.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/noise.h"
#include "../core/sys.h"
#include "../core/stop.h"
#include "../lab/balloon.h"
#include "../lab/distro.h"
#include "../lab/fs.h"
#include "../lab/workdir.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../lab/contend.h"
#include "../lab/proto.h"
#include "../lab/qemu.h"
#include "../probe/probe.h"
#include "../report/compare.h"
#include "../report/hostcost.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/balloon.h"
#include "../suites/contend.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"

/* lab's own options that lab run alone takes (their help says "run:"); baseline
 * is report's too */
static const char *const lab_run_only[] = { "matrix", "suites", "boots", "rounds", "mdd", "budget-total", "baseline",
					     "disk-size", "disk-format", "disk-cache", "retries", "hello-timeout",
					     "label" };

/* `vmbench run`'s options (src/cmd/run.c): the host's net client is checked against them */
extern const struct vmb_opt run_opts[];

/* Why the disk suite's test file is not the user's to place in a lab run. */
#define LAB_SCRATCH_FILE_WHY                                                                                         \
	"each guest's disk suite tests the scratch disk behind the configuration's controller (the matrix key "     \
	"disk); the host baseline's test file goes in the current directory"

/* lab contend's --suites unless given: the study's composite CPU load and
 * its latency probes, inside each guest (sched.wakeup) and from the host
 * to each guest (net.udp_rr) */
#define LAB_CONTEND_SUITES "cpu.prime,cpu.matrix,cpu.zlib,sched.wakeup,net.udp_rr"

const struct vmb_opt lab_opts[] = {
	{ .name = "arch", .type = OPT_STRING, .def = "x86_64", .choices = "x86_64|aarch64", .metavar = "ARCH",
	  .help = "image: the guest's architecture" },
	{ .name = "image-dir", .type = OPT_STRING, .metavar = "DIR",
	  .help = "image: where the image goes (default CACHE/image-ARCH); run: where the images go, DIR/ARCH" },
	{ .name = "cache", .type = OPT_STRING, .metavar = "DIR",
	  .help = "where downloaded Debian packages are kept (default $XDG_CACHE_HOME/vmbench)" },
	{ .name = "kernel", .type = OPT_STRING, .metavar = "PATH",
	  .help = "image: a linux-image .deb, or a bare kernel whose drivers are built in (default: Debian's, "
		  "fetched with apt-get download)" },
	{ .name = "distro", .type = OPT_STRING, .choices = LAB_DISTRO_CHOICES, .metavar = "NAME",
	  .help = "image: a disk image of a distribution instead of the busybox initramfs: Debian 12 made with "
		  "debootstrap from Debian's registry (systemd, openssh-server, Debian's kernel, this vmbench's agent "
		  "as a systemd service after the network, the lab's SSH key from CACHE/ssh), as root.qcow2 with the "
		  "kernel and initrd beside it; needs root the first time (debootstrap's chroot), then cached" },
	{ .name = "distro-packages", .type = OPT_STRING, .metavar = "LIST",
	  .help = "image: more packages for --distro's image, comma-separated Debian names (e.g. gcc,make for "
		  "app.build)" },
	{ .name = "busybox", .type = OPT_STRING, .metavar = "PATH",
	  .help = "a static busybox for the guest (default /bin/busybox, or Debian's busybox-static for another "
		  "architecture, fetched into the cache)" },
	{ .name = "agent", .type = OPT_KV, .metavar = "ARCH=PATH",
	  .help = "the vmbench to put in ARCH guests (default this binary on its own architecture, vmbench-ARCH "
		  "beside it for another, as 'make cross' makes build/vmbench-aarch64)" },
	{ .name = "matrix", .type = OPT_STRING, .metavar = "SPEC",
	  .help = "run: the configurations, e.g. \"accel=tcg disk=ide,virtio-blk smp=1,2\", every combination of "
		  "the values; several such products joined by | are measured one after the other, e.g. \"disk=ide,nvme "
		  "| nic=e1000\" (a configuration twice is refused). " LAB_MATRIX_HELP },
	{ .name = "suites", .type = OPT_STRING, .def = "cpu,disk,boot", .metavar = "LIST",
	  .help = "run, contend: what to measure in each guest (suites or SUITE.TEST, separated by commas or spaces, "
		  "e.g. cpu,disk.randread,boot or 'cpu disk.randread boot'); "
		  "contend's default is the study's composite load and latency probes, "
		  LAB_CONTEND_SUITES " (net.udp_rr measured by the host's client, from the host to each guest)" },
	{ .name = "quick", .type = OPT_BOOL, .help = "run: short runs of the suites, in the guests and on the host" },
	/* how each guest and the host measure: `vmbench run`'s rows, passed to both */
	RUN_MEASURE_OPTS,
	{ .name = "boots", .type = OPT_INT, .min = 1, .max = 100, .def = "3", .quick = "2", .metavar = "N",
	  .help = "run: cold boots timed per configuration (the first also runs the suites)" },
	{ .name = "rounds", .type = OPT_STRING, .def = "1", .metavar = "N|auto",
	  .help = "run: boot every configuration N times (1 to 100), in an order shuffled per round (the seed is "
		  "recorded), so drift during a long matrix hits every configuration alike; each boot is a run for "
		  "compare, which compares the configurations round by round. auto: rounds until every headline "
		  "verdict against the baseline has a minimal detectable difference of at most --mdd, or until "
		  "--budget-total would run out; it says which" },
	RUN_AUTO_OPTS,
	{ .name = "baseline", .type = OPT_STRING, .def = "host", .metavar = "WHAT",
	  .help = "run, report: what the configurations are compared with: host (measured with the same suites), none "
		  "(no host: the first configuration), or KEY=VALUE[,KEY=VALUE] naming one configuration of the matrix, "
		  "e.g. disk=ide (the host is measured too, and shown beside the configurations)" },
	{ .name = "disk-size", .type = OPT_SIZE, .min = 16 << 20, .max = 1ull << 40, .def = "1g", .quick = "128m",
	  .metavar = "SIZE", .help = "run: the scratch disk behind the configuration's controller" },
	{ .name = "disk-format", .type = OPT_STRING, .def = "raw", .choices = LAB_BACKEND_CHOICES(LAB_DISK), .metavar = "FMT",
	  .help = "run: the scratch disk's image format (qcow2 needs qemu-img, Debian's qemu-utils)" },
	{ .name = "disk-cache", .type = OPT_STRING, .def = "none", .choices = LAB_CACHE_CHOICES,
	  .metavar = "MODE", .help = "run: QEMU's cache mode for the scratch disk: the matrix key cache's value "
				     "where the matrix gives none" },
	{ .name = "retries", .type = OPT_INT, .min = 0, .max = 10, .def = "1", .metavar = "N",
	  .help = "run: boot a configuration that failed again, up to N more times in the same round; when no try "
		  "succeeds, the round is marked failed for it. Each failed boot's console and QEMU's output are "
		  "kept in $XDG_STATE_HOME/vmbench/lab-failures/, named in the message and the report" },
	{ .name = "hello-timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "180", .metavar = "SECONDS",
	  .help = "run: how long a guest may take to boot and say HELLO" },
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE", .help = "run: tag every stored result" },
	{ .name = "guests", .type = OPT_INT, .min = 2, .max = CONTEND_MAX_GUESTS, .def = "4", .metavar = "N",
	  .help = "contend: guests of the one configuration booted at once, each QEMU in a cgroup of its own" },
	{ .name = "policy", .type = OPT_STRING, .def = "fair", .metavar = "LIST",
	  .help = "contend: the host's policies, a list of " CONTEND_POLICY_CHOICES ", each measured on the same "
		  "booted guests (a cell per policy and load, shuffled per round): fair, equal weights; weights, "
		  "--shares; reservation, guest 1 promised --reserve% of the host CPUs given, approximated by caps "
		  "on the others (Linux has no hard CPU reservation); rt, guest 1's threads SCHED_FIFO, the others "
		  "fair. One that cannot run here (no permission, no cpu controller) is skipped with the reason" },
	{ .name = "shares", .type = OPT_STRING, .metavar = "LIST",
	  .help = "contend: weights: one relative weight (1 to 100) per guest, e.g. 1,1,2 (default all 1)" },
	{ .name = "reserve", .type = OPT_INT, .min = 1, .max = 99, .def = "50", .metavar = "PCT",
	  .help = "contend: reservation: guest 1's share of the host CPUs given; each other guest is capped at its "
		  "part of the rest (cpu.cfs_quota_us, cpu.max), which must be at least the kernel's 1 ms of each "
		  "100 ms (a reserve that leaves less is refused, with the most that fits)" },
	{ .name = "load", .type = OPT_STRING, .def = "0", .metavar = "LIST",
	  .help = "contend: background loads, % of each vCPU, e.g. 50,80,95: each guest runs its items beside a "
		  "spinner per vCPU busy that share of every 10 ms ('vmbench run --load'); a cell each" },
	{ .name = "host-cpus", .type = OPT_STRING, .metavar = "LIST",
	  .help = "contend: confine every QEMU (all its threads) to these host CPUs, e.g. 0: the guests contend "
		  "for them while the others stay for the system (default all)" },
	{ .name = "rt-threads", .type = OPT_STRING, .def = "all", .choices = "vcpus|all", .metavar = "WHICH",
	  .help = "contend: rt: which of guest 1's QEMU threads run SCHED_FIFO: its vCPU threads, or all (under "
		  "TCG the guest's timers are run by QEMU's main loop, not a vCPU thread: see docs/methodology.md)" },
	{ .name = "rt-priority", .type = OPT_INT, .min = 1, .max = 99, .def = "1", .metavar = "N",
	  .help = "contend: rt: the SCHED_FIFO priority; any priority runs before every fair thread, and a low "
		  "one leaves the kernel's own real-time threads ahead of the guest (with --rt-threads all at most "
		  "98: QEMU's other threads run one above)" },
	{ .name = "output", .short_name = 'o', .type = OPT_STRING, .metavar = "FILE",
	  .help = "run, report, study: the HTML report to write (a new file; - for stdout; default a new "
		  "vmbench-lab-DATE-TIME.html, a study's vmbench-study-DATE-TIME.html, named when written)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",
	  .help = "run, report: the result store (default $VMBENCH_DB, else $XDG_DATA_HOME/vmbench/results.db)" },
	{ .name = "list", .type = OPT_BOOL, .help = "study: list the shipped studies (studies/ of the source tree, or "
						     "$VMBENCH_STUDIES)" },
	{ .name = "plan", .type = OPT_BOOL,
	  .help = "study: print every experiment's configurations, its boots and an estimated time, with its "
		  "options checked as lab run checks them; nothing runs" },
	{ .name = "experiment", .type = OPT_STRING, .metavar = "ID[,ID]",
	  .help = "study: plan and run only these experiments of the study (their [experiment ID]), e.g. to measure "
		  "again one whose table was missing; the others are not listed" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	/* Options of `vmbench run` and of the suites that name the host's paths
	 * or the lab's own plumbing: refused, saying why and what instead (a
	 * row here shadows the suite's row of that name) */
	{ .name = "out", .type = OPT_BOOL, .refused = true,
	  .help = "--image-dir DIR says where the guest images go, -o FILE where the HTML report goes" },
	{ .name = "json", .type = OPT_BOOL, .refused = true,
	  .help = "the lab stores every run in its store (--db) with the labels of its configuration; 'vmbench "
		  "export' writes stored runs out" },
	{ .name = "no-store", .type = OPT_BOOL, .refused = true,
	  .help = "the lab compares what it stores; --db PATH names another store" },
	{ .name = "runs", .type = OPT_BOOL, .refused = true,
	  .help = "a lab run is replicated by booting again: --rounds N boots every configuration N times, in an "
		  "order shuffled per round" },
	{ .name = "seed", .type = OPT_BOOL, .refused = true,
	  .help = "the lab shuffles the configurations of each round (--rounds) and records that seed; a guest runs "
		  "the items of --suites in their order" },
	{ .name = "destructive", .type = OPT_BOOL, .refused = true,
	  .help = "each guest overwrites a scratch disk of its own, which the lab attaches; the host baseline writes "
		  "a new file" },
	{ .name = "progress-fd", .type = OPT_BOOL, .refused = true,
	  .help = "the channel of a guest's progress to its agent; lab run draws it on a terminal" },
	{ .name = "disk.dir", .type = OPT_BOOL, .refused = true, .help = LAB_SCRATCH_FILE_WHY },
	{ .name = "disk.file", .type = OPT_BOOL, .refused = true, .help = LAB_SCRATCH_FILE_WHY },
	{ .name = "disk.device", .type = OPT_BOOL, .refused = true,
	  .help = "a host's device is no guest's: the lab attaches a scratch disk to each guest (--disk-size, "
		  "--disk-format, --disk-cache, the matrix key disk)" },
	{ .name = "disk.size", .type = OPT_BOOL, .refused = true,
	  .help = "--disk-size SIZE sizes the scratch disk, which each guest tests whole and the host as a file of "
		  "that size, so that they pair in compare" },
	{ .name = "app.dir", .type = OPT_BOOL, .refused = true,
	  .help = "the lab chooses where a guest's app suite works; the host baseline's works in the current "
		  "directory" },
	{ .name = "app.db", .type = OPT_BOOL, .refused = true,
	  .help = "a server URL names a server of the host's network, which is no guest's; app.oltp_* run on SQLite "
		  "in each guest and on the host, or on the guest's own MariaDB with the matrix key db=mariadb" },
	{ .name = "net.server", .type = OPT_BOOL, .refused = true,
	  .help = "the lab chooses the server of each guest's net suite" },
	{ .name = "net.url", .type = OPT_BOOL, .refused = true,
	  .help = "a URL names a server of the host's network, which is no guest's; the lab chooses the server of "
		  "each guest's net suite (the matrix key httpd: nginx in the guest, say)" },
	OPT_TABLE_END,
};

static int cmd_lab(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_lab_desc = {
	.name = "lab",
	.fn = cmd_lab,
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
	.flags = CMD_SUITE_OPTS,
	.min_args = 1,
	.max_args = 2,
};

static void cache_home(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/vmbench", xdg);
	else
		snprintf(buf, len, "%s/.cache/vmbench", home && *home ? home : "/tmp");
}

/* Does the --suites list name suite s, or a test of it? */
static bool items_name(const char *items, const struct vmb_suite *s)
{
	for (const char *p = items; *p; p += strcspn(p, ","), p += *p == ',') {
		char what[128];

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		if (lab_item_suite(what) == s)
			return true;
	}
	return false;
}

/* Where the host baseline's files go: the working directory (where `run`
 * puts them by default), else $TMPDIR, /var/tmp or /tmp, the first that
 * takes files and is on a disk: the guests' files are on their disk under
 * test, not in memory. When all are on tmpfs, the working directory, and
 * *note says so. */
static void host_dir(char *dir, size_t len, const char **note)
{
	const char *const cands[] = { ".", getenv("TMPDIR"), "/var/tmp", "/tmp" };

	*note = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		struct statfs sfs;

		if (!cands[i] || !*cands[i] || access(cands[i], W_OK) < 0 || statfs(cands[i], &sfs) < 0 ||
		    (unsigned long)sfs.f_type == TMPFS_MAGIC || (unsigned long)sfs.f_type == RAMFS_MAGIC ||
		    !realpath(cands[i], dir))
			continue;
		return;
	}
	*note = "the host has no place to write on a disk (the working directory, $TMPDIR, /var/tmp and /tmp are "
		"on tmpfs or take no files): its file tests ran in the working directory, on memory";
	if (!realpath(".", dir))
		snprintf(dir, len, ".");
}

/* The host's document says what its file tests ran on, as a guest's does. */
static int host_filesystem(json_t *doc, const char *dir, const char *note)
{
	char err[512];
	json_t *fs = NULL;

	if (lab_fs_describe(dir, &fs, err, sizeof(err)) < 0) {
		fs = json_pack("{s:s, s:s}", "type", "unknown", "note", err);
	} else if (note && json_object_set_new(fs, "note", json_string(note)) < 0) {
		json_decref(fs);
		fs = NULL;
	}
	return fs ? json_object_set_new(doc, "filesystem", fs) : -ENOMEM;
}

/* The host baseline: this binary's `run` of the same suites and tests as in
 * the guests, with the same options, but those the lab measures from
 * outside a guest (boot). NULL with err on failure, NULL with err empty
 * when only boot was asked. */
static json_t *host_run(const char *suites, const json_t *opts, const char *disk_size, char *err, size_t errlen)
{
	static const char *const tail[] = { "--no-store", "-q", "--json", "-" };
	struct strv argv = { 0 };
	char *items = xstrdup(suites), *save = NULL, *out = NULL;
	size_t nitems = 0;
	json_t *doc = NULL;
	const char *note;
	char dir[4096];
	bool files = false;
	int r;

	err[0] = '\0';
	host_dir(dir, sizeof(dir), &note);
	r = items ? strv_push(&argv, "vmbench") : -ENOMEM;
	if (r == 0)
		r = strv_push(&argv, "run");
	for (char *it = items ? strtok_r(items, ",", &save) : NULL; r == 0 && it; it = strtok_r(NULL, ",", &save))
		if (!lab_host_measured(it)) {
			r = strv_push(&argv, it);
			nitems++;
		}
	/* a guest tests the whole scratch disk and records its size: the host
	 * tests a target of that size, so that the two pair in compare */
	for (size_t i = 0; r == 0 && i < vmb_nsuites; i++) {
		const struct vmb_suite *s = vmb_suites[i];
		char opt[96];

		if (!s->scratch || !items_name(suites, s))
			continue;
		snprintf(opt, sizeof(opt), "--%s.%s", s->name, s->scratch->size_opt ? s->scratch->size_opt : "");
		r = s->scratch->size_opt ? strv_push(&argv, opt) : 0;
		if (r == 0 && s->scratch->size_opt)
			r = strv_push(&argv, disk_size);
		/* on a disk of the host's, as the guest's are on its disk under test */
		snprintf(opt, sizeof(opt), "--%s.%s", s->name, s->scratch->dir_opt);
		if (r == 0)
			r = strv_push(&argv, opt);
		if (r == 0)
			r = strv_push(&argv, dir);
		files = true;
	}
	if (r < 0) {
		errf(err, errlen, r, "out of memory");
		goto out;
	}
	/* the guests' options, taken as an agent takes them */
	if (opts && proto_run_args(opts, run_opts, NULL, "the host", &argv, err, errlen) < 0)
		goto out;
	for (size_t i = 0; r == 0 && i < sizeof(tail) / sizeof(tail[0]); i++)
		r = strv_push(&argv, tail[i]);
	if (r < 0) {
		errf(err, errlen, r, "out of memory");
		goto out;
	}
	if (!nitems)
		goto out;
	/* exit 1 means a measurement failed: the document is still there */
	/* its messages (quiet: warnings and errors) reach the user's terminal */
	(void)run_capture_stdout("/proc/self/exe", argv.v, &out);
	/* the capture gives "" for no output: not a JSON error to report */
	if (!out || !*out) {
		errf(err, errlen, -EIO, "the host run printed no result (its messages are above)");
		goto out;
	}
	if (doc_load_string(out, "the host run", &doc, err, errlen) < 0)
		doc = NULL;
	if (doc && files && host_filesystem(doc, dir, note) < 0) {
		errf(err, errlen, -ENOMEM, "out of memory");
		json_decref(doc);
		doc = NULL;
	}
out:
	free(out);
	free(items);
	strv_clear(&argv);
	return doc;
}

/* The vmbench binary that goes into ARCH guests. */
static int guest_vmbench(const struct optset *own, const char *arch, char *buf, size_t len, char *err, size_t errlen)
{
	const struct strv *given = &optset_get(own, "agent")->kv;
	char self[4096];
	ssize_t n;

	for (size_t i = 0; i < given->n; i++) {
		size_t l = strlen(arch);

		if (!strncmp(given->v[i], arch, l) && given->v[i][l] == '=') {
			snprintf(buf, len, "%s", given->v[i] + l + 1);
			return 0;
		}
	}
	/* the real path: the image records this file, not a /proc/self of its own */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return errf(err, errlen, -errno, "finding this binary: %s", strerror(errno));
	self[n] = '\0';
	if (!strcmp(arch, lab_host_arch())) {
		snprintf(buf, len, "%s", self);
		return 0;
	}
	*strrchr(self, '/') = '\0';
	snprintf(buf, len, "%s/vmbench-%s", self, arch);
	if (access(buf, X_OK) < 0)
		return errf(err, errlen, -ENOENT, "no vmbench for %s guests at %s: build one with 'make cross' (Meson cross "
			    "file cross/aarch64-linux-gnu.ini) or give --agent %s=PATH", arch, buf, arch);
	return 0;
}

/* Build (or find up to date) the image for arch in dir. */
static int image_for(const struct optset *own, const char *arch, const char *cache, const char *dir, int *rebuilt,
		     char *err, size_t errlen)
{
	char vmb[4096];
	int r = guest_vmbench(own, arch, vmb, sizeof(vmb), err, errlen);

	if (r < 0)
		return r;
	return lab_image_build(&(struct lab_image_opts){ .arch = arch, .cache = cache, .out = dir,
				       .kernel = optset_str(own, "kernel"), .busybox = optset_str(own, "busybox"),
				       .vmbench = vmb }, rebuilt, err, errlen);
}

/* Build (or find up to date) --distro's disk image for arch in dir, with
 * the packages (comma-separated; NULL: none) added. */
static int distro_image_for(const struct optset *own, const char *distro, const char *packages, const char *arch,
			    const char *cache, const char *dir, int *rebuilt, char *err, size_t errlen)
{
	char vmb[4096], *pub = NULL;
	int r = guest_vmbench(own, arch, vmb, sizeof(vmb), err, errlen);

	if (r == 0)
		r = lab_distro_ssh_key(cache, &pub, err, errlen);
	if (r == 0)
		r = lab_distro_build(&(struct lab_distro_opts){ .d = lab_distro_find(distro),
					     .arch = arch, .cache = cache, .out = dir, .vmbench = vmb, .pubkeys = pub,
					     .packages = packages }, rebuilt, err, errlen);
	free(pub);
	return r;
}

/* A failed test is stored as measured, and said: it fails the run (exit 1). */
static size_t say_failures(const char *who, const json_t *doc)
{
	struct strv why = { 0 };
	size_t n = doc_failures(doc, &why);

	for (size_t j = 0; j < why.n; j++)
		log_error("%s: %s", who, why.v[j]);
	strv_clear(&why);
	return n ? 1 : 0;
}

/* What a lab run carries from one configuration to the next. */
struct lab {
	const struct optset *own;
	const char *cache, *image_dir, *suites;
	json_t *run_opts; /* the guests' and the host's options, as RUN takes them */
	struct db *db;
	struct cmp_table t;
	size_t failed;
	bool host;       /* the host baseline is the comparison's first operand */
	bool kvm_failed; /* accel=auto: decided once per process (kvm_failed_here) */
	struct image_slot {
		char dir[4200];
		int state; /* 0 not yet, 1 ready, -1 failed */
	} images[2][LAB_NIMAGES]; /* per architecture and image row, built when a configuration first needs one */
	char disk_size[32];
	json_t *group;   /* --rounds: this round's run_group, or NULL */
	json_t *busy;    /* config name -> [busy rounds, rounds] of the host noise sensors */
	char session[40]; /* the label lab=SESSION of every result of this run */
	char base[256];   /* --baseline KEY=VALUE: the configuration it names; else empty */
	struct strv base_pairs; /* --baseline KEY=VALUE: its pairs */
	const struct lab_backend *nic_be; /* what the NICs sit on: the first usable back end */
	char nic_note[600];               /* why not a tap, when user networking carries the NICs */
	unsigned round;  /* 1..--rounds */
	unsigned rounds; /* --rounds N; auto: the most */
	bool autorounds; /* --rounds auto */
	char accel_asked[32];         /* the configuration's accel before auto was resolved */
	struct lab_evidence evidence; /* where the failed boots' consoles go */
	json_t *failures;             /* their records, for the comparison's reader (t.failures) */
	bool kvm_probed, kvm_ok;      /* accel=kvm: /dev/kvm as `info` probes it */
	char kvm_why[256];
	/* lab study's check of an experiment: what lab run checks before the
	 * first boot, but for what only this machine decides (its CPUs, a
	 * configuration it cannot run); nothing opened, nothing booted */
	bool check_only;
	char accel_note[320];         /* accel=auto: why TCG was used */
};

/* The label that says which lab session a result belongs to (the
 * document names its configuration under LAB_CONFIG_KEY: not a label, its
 * words are the matrix keys' labels). */
#define LAB_SESSION_LABEL "lab"
#define LAB_HOST "host"

/* A new session id: the UTC time it started and 16 random bits, so that two
 * sessions started in one second are told apart. */
static void session_new(char *buf, size_t len)
{
	time_t now = time(NULL);
	unsigned short rnd = 0;
	struct tm tm;
	char when[32];

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = (unsigned short)(getpid() ^ (unsigned)now ^ (unsigned)(clock() & 0xffff));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%04x", when, (unsigned)rnd);
}

/* Label, store and add to the comparison one operand's document (taken). */
static void lab_keep(struct lab *l, const char *name, json_t *doc, const struct lab_config *c, const char *note)
{
	json_t *labels = json_object_get(doc, "labels");
	bool marker = json_object_get(doc, "lab_failure") != NULL;
	char legend[512];
	int64_t id;
	int r = 0;

	if (!json_is_object(labels)) {
		labels = json_object();
		r = labels ? json_object_set_new(doc, "labels", labels) : -ENOMEM;
	}
	/* the configuration is selected by its matrix keys, the session by its
	 * id; its name (words with spaces) is the document's, not a label */
	for (int k = 0; c && r == 0 && k < LAB_NKEYS; k++)
		r = json_object_set_new(labels, lab_key_name((enum lab_key)k), json_string(c->v[k]));
	if (r == 0)
		r = json_object_set_new(labels, LAB_SESSION_LABEL, json_string(l->session));
	if (r == 0)
		r = json_object_set_new(doc, LAB_CONFIG_KEY, json_string(name));
	if (r == 0)
		r = cmd_set_labels(doc, &optset_get(l->own, "label")->kv);
	if (r == 0 && note)
		r = json_object_set_new(doc, "lab_note", json_string(note));
	if (r == 0 && c && lab_config_legend(c, legend, sizeof(legend)))
		r = json_object_set_new(doc, "lab_legend", json_string(legend));
	if (r == 0 && l->group)
		r = json_object_set_new(doc, "run_group", json_deep_copy(l->group));
	if (r < 0) {
		log_error("%s: out of memory labelling the result", name);
		json_decref(doc);
		l->failed++;
		return;
	}
	l->failed += say_failures(name, doc);
	if (db_add(l->db, doc, &id) == 0)
		log_info("%s: %s as run %lld", name, marker ? "the failure stored" : "stored", (long long)id);
	else
		l->failed++;
	/* a failure's marker is for lab report's list: no run to compare */
	if (marker) {
		json_decref(doc);
		return;
	}
	/* a later round of the same configuration: another run of its operand */
	for (size_t o = 0; o < l->t.nops; o++)
		if (!strcmp(l->t.ops[o].name, name)) {
			if (json_array_append_new(l->t.ops[o].docs, doc) < 0) {
				log_error("%s: out of memory adding it to the comparison", name);
				l->failed++;
			}
			return;
		}
	if (cmp_add_operand(&l->t, name, json_pack("[o]", doc)) < 0) {
		log_error("%s: out of memory adding it to the comparison", name);
		l->failed++;
	}
}

static int lab_baseline(struct lab *l)
{
	char err[2048];
	json_t *doc;

	log_info("measuring the host (baseline)");
	doc = host_run(l->suites, l->run_opts, l->disk_size, err, sizeof(err));
	/* Ctrl-C reached the host's run too: no failure of its own */
	if (!doc && *err && vmb_stop_requested())
		return -EINTR;
	if (!doc && *err) {
		log_error("the host baseline failed: %s", err);
		return -EIO;
	}
	if (doc) {
		size_t before = l->t.nops;

		lab_keep(l, LAB_HOST, doc, NULL, NULL);
		l->host = l->host || l->t.nops > before; /* a later round pools into it */
	}
	return 0;
}

/* "accel=tcg disk=ide": the keys the matrix gave, the configuration's name */
static void config_name(const struct lab_matrix *m, const struct lab_config *c, char *name, size_t len)
{
	size_t off = 0;

	name[0] = '\0';
	for (int k = 0; k < LAB_NKEYS && off < len; k++)
		if (m->given & (1u << k))
			str_appendf(name, len, &off, "%s%s=%s", off ? " " : "", lab_key_name((enum lab_key)k), c->v[k]);
	if (!*name)
		snprintf(name, len, "default");
}

/* The image for this configuration's architecture and image key, built once per run. */
static const char *lab_image(struct lab *l, const char *name, const struct lab_config *c)
{
	const char *arch = c->v[LAB_ARCH];
	const struct lab_image_row *row = lab_config_image(c);
	struct image_slot *img = &l->images[!strcmp(arch, "aarch64")][row - lab_images];
	char err[2048];
	int rebuilt = 0;

	if (!img->state) {
		/* a distribution's rows by their own name: debian-apps is not debian */
		if (l->image_dir && row->distro)
			snprintf(img->dir, sizeof(img->dir), "%s/%s-%s", l->image_dir, row->name, arch);
		else if (l->image_dir)
			snprintf(img->dir, sizeof(img->dir), "%s/%s", l->image_dir, arch);
		else if (row->distro)
			snprintf(img->dir, sizeof(img->dir), "%s/image-%s-%s", l->cache, row->name, arch);
		else
			snprintf(img->dir, sizeof(img->dir), "%s/image-%s", l->cache, arch);
		img->state = (row->distro ? distro_image_for(l->own, row->distro, row->packages, arch, l->cache, img->dir,
							     &rebuilt, err, sizeof(err))
					  : image_for(l->own, arch, l->cache, img->dir, &rebuilt, err, sizeof(err))) < 0 ? -1 : 1;
		if (img->state < 0)
			log_error("%s: the %s %s image: %s", name, arch, row->name, err);
		else
			log_info("%s %s image %s %s", arch, row->name, img->dir, rebuilt ? "built" : "up to date");
	}
	return img->state > 0 ? img->dir : NULL;
}

/* accel=auto: KVM could not boot a guest on this machine, found once per
 * process, and why: a study's experiments (each a lab run of this process)
 * do not wait out a KVM boot that cannot work again and again. */
static bool kvm_failed_here;
static char kvm_failed_note[700];

static bool kvm_usable(struct lab *l);

/* accel=auto: TCG for another architecture; KVM when /dev/kvm creates VMs
 * (as accel=kvm asks it, kvm_usable) and no guest failed under it yet.
 * *note says why TCG was used. */
static void resolve_accel(struct lab *l, struct lab_config *c, bool native, const char **note)
{
	bool failed, kvm;

	*note = NULL;
	if (strcmp(c->v[LAB_ACCEL], "auto"))
		return;
	if (!native) {
		snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "tcg");
		*note = "accel=auto: a guest of another architecture is emulated, TCG used";
		return;
	}
	failed = l->kvm_failed || kvm_failed_here;
	kvm = !failed && kvm_usable(l);
	snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "%s", kvm ? "kvm" : "tcg");
	if (failed) {
		*note = kvm_failed_note;
	} else if (!kvm) {
		snprintf(l->accel_note, sizeof(l->accel_note), "accel=auto: /dev/kvm is %s, TCG used", l->kvm_why);
		*note = l->accel_note;
	}
}

static int boot_config(const struct lab *l, const struct lab_config *c, const char *image_dir, int hello_timeout_ms,
		       json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	return lab_run_config(c, &(struct lab_run_opts){
		.image_dir = image_dir, .cache = l->cache, .suites = l->suites, .boots = (unsigned)optset_int(l->own, "boots"),
		.run_opts = l->run_opts, .progress = isatty(STDERR_FILENO) && log_get_level() >= LOG_INFO,
		.disk_size = l->disk_size, .disk_format = optset_str(l->own, "disk-format"),
		.disk_cache = optset_str(l->own, "disk-cache"), .hello_timeout_ms = hello_timeout_ms,
		.run_table = run_opts, .nic_backend = l->nic_be ? l->nic_be->name : NULL,
	}, doc, f, err, errlen);
}

/* One try of a configuration, with accel=auto's fall back to TCG when KVM
 * could not boot the guest (that is no failed try: TCG is then tried). */
static int boot_try(struct lab *l, struct lab_config *c, const char *image, const char *name, const char **note,
		    json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	bool autoaccel = !strcmp(l->accel_asked, "auto");
	int timeout_ms = (int)(optset_double(l->own, "hello-timeout") * 1000), r;

	/* a KVM guest that is not talking within 15 s will not (it boots in seconds): do not wait longer for auto */
	r = boot_config(l, c, image, autoaccel && !strcmp(c->v[LAB_ACCEL], "kvm") && timeout_ms > 15000 ? 15000 : timeout_ms,
			doc, f, err, errlen);
	if (r < 0 && autoaccel && !strcmp(c->v[LAB_ACCEL], "kvm") && !vmb_stop_requested()) {
		/* KVM present but not able to run this guest (a nested host, say):
		 * TCG, at once when QEMU stopped the guest for good (f->final) */
		log_info("%s: KVM did not boot the guest (%.400s); using TCG from now on", name, err);
		l->kvm_failed = kvm_failed_here = true;
		snprintf(kvm_failed_note, sizeof(kvm_failed_note), "accel=auto: KVM could not boot the guest here (%.400s), "
			 "TCG used", err);
		snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "tcg");
		*note = kvm_failed_note;
		lab_failure_release(f);
		r = boot_config(l, c, image, timeout_ms, doc, f, err, errlen);
	}
	return r;
}

/* A failed try said (the step, why, where its evidence is kept, how the
 * console ends) and recorded in l->failures. */
static void lab_failed_try(struct lab *l, const char *name, unsigned try, unsigned tries, const struct lab_failure *f,
			   const char *err)
{
	char note[1024];
	json_t *rec = lab_evidence_keep(&l->evidence, name, l->round, try, tries, f, err, note, sizeof(note));
	const char *console = json_string_value(json_object_get(rec, "console"));
	const char *qemu = json_string_value(json_object_get(rec, "qemu_log"));
	size_t n = f->console ? strlen(f->console) : 0;

	log_error("%s: %s failed (round %u, try %u of %u): %s", name, f->step, l->round, try, tries, err);
	if (console || qemu)
		log_error("%s: kept: %s%s%s%s%s", name, console ? "the guest's console in " : "", console ? console : "",
			  console && qemu ? ", " : "", qemu ? "QEMU's output in " : "", qemu ? qemu : "");
	if (*note)
		log_error("%s: %s", name, note);
	if (f->console && n)
		log_error("%s: the console ends with:\n%s", name, f->console + (n > 600 ? n - 600 : 0));
	else if (f->console)
		log_error("%s: the guest printed nothing on its console", name);
	if (!rec || json_array_append_new(l->failures, rec) < 0) {
		log_error("%s: out of memory recording the failure", name);
		l->failed++;
	}
}

/* Boot a configuration until a try succeeds, at most 1 + --retries times in
 * this round. Each failed try is said, kept and, once the round is over for
 * the configuration, stored as a marker (lab report lists it). 0 with *doc,
 * or the last try's error in err. */
static int boot_tries(struct lab *l, struct lab_config *c, const char *image, const char *name, const char **note,
		      json_t **doc, struct noise_snap *ns, double *started, char *err, size_t errlen)
{
	unsigned tries = 1 + (unsigned)optset_int(l->own, "retries");
	size_t first = json_array_size(l->failures);
	int r = -EINTR;

	for (unsigned t = 1; t <= tries && !vmb_stop_requested(); t++) {
		struct lab_failure f;
		bool final;

		if (t == 1)
			log_info("%s: booting (%s)", name, c->v[LAB_ACCEL]);
		else
			log_info("%s: booting again (%s), try %u of %u", name, c->v[LAB_ACCEL], t, tries);
		noise_begin(ns, NULL, 0);
		*started = wall_time_s();
		r = boot_try(l, c, image, name, note, doc, &f, err, errlen);
		if (r < 0 && r != -EOPNOTSUPP && !vmb_stop_requested())
			lab_failed_try(l, name, t, tries, &f, err);
		final = f.final;
		lab_failure_release(&f);
		if (r == 0 || r == -EOPNOTSUPP)
			break;
		/* QEMU stopped the guest for good: another try fails the same way */
		if (final && t < tries && !vmb_stop_requested()) {
			log_error("%s: not booted again (--retries %u): QEMU stopped the guest for good, and a new boot of "
				  "the same configuration stops the same way", name, tries - 1);
			break;
		}
	}
	for (size_t i = first; i < json_array_size(l->failures); i++) {
		json_t *rec = json_array_get(l->failures, i), *marker;
		char why[512];

		/* every failed try but a last one that ended the round was retried */
		if ((r == 0 || i + 1 < json_array_size(l->failures)) &&
		    json_object_set_new(rec, "outcome", json_string("retried")) < 0)
			log_error("%s: out of memory recording the failure", name);
		marker = lab_failure_marker(rec, why, sizeof(why));
		if (marker)
			lab_keep(l, name, marker, c, *note);
		else
			log_error("%s: the failure is not stored: %s", name, why);
	}
	return r;
}

/* accel=kvm given: does this machine's /dev/kvm run guests? Asked once, as
 * `vmbench info` asks it (probe_kvm_usable), the answer in l->kvm_why. */
static bool kvm_usable(struct lab *l)
{
	if (!l->kvm_probed)
		l->kvm_ok = probe_kvm_usable(probe_machine_root(), l->kvm_why, sizeof(l->kvm_why));
	l->kvm_probed = true;
	return l->kvm_ok;
}

/* One configuration of the matrix: boot it, measure, keep the result. */
static void lab_config(struct lab *l, const struct lab_matrix *m, size_t i)
{
	struct lab_config c = m->configs[i];
	bool native = !strcmp(c.v[LAB_ARCH], lab_host_arch());
	char name[256], err[2048];
	const char *image, *note;
	json_t *doc = NULL;
	struct noise_snap ns;
	struct noise_reading nr;
	double started = 0;
	int r;

	config_name(m, &c, name, sizeof(name));
	if (lab_config_unsupported(&c, err, sizeof(err))) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	if (!strcmp(c.v[LAB_ACCEL], "kvm") && !native) {
		log_info("%s: skipped: KVM runs guests of this machine's architecture (%s) only; accel=tcg emulates %s",
			 name, lab_host_arch(), c.v[LAB_ARCH]);
		return;
	}
	if (!strcmp(c.v[LAB_ACCEL], "kvm") && !kvm_usable(l)) {
		log_info("%s: skipped: accel=kvm needs a /dev/kvm that runs guests, and this machine's is %s (as 'vmbench "
			 "info' says); accel=tcg emulates the guest instead", name, l->kvm_why);
		return;
	}
	image = lab_image(l, name, &c);
	if (!image) {
		l->failed++;
		return;
	}
	if (lab_config_fs(&c) && lab_image_lacks_fs(image, c.v[LAB_FS], err, sizeof(err))) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	snprintf(l->accel_asked, sizeof(l->accel_asked), "%s", c.v[LAB_ACCEL]);
	resolve_accel(l, &c, native, &note);
	r = boot_tries(l, &c, image, name, &note, &doc, &ns, &started, err, sizeof(err));
	if (r == -EOPNOTSUPP) {
		log_info("%s: skipped: %s", name, err);
		return;
	}
	if (r < 0) {
		l->failed++;
		return;
	}
	/* what else ran on the host meanwhile (QEMU, reaped, counts as ours) */
	noise_end(&ns, NULL, 0, started, &nr);
	r = json_object_set_new(doc, "host_noise", json_pack("{s:o, s:o, s:b}", "other_cpu_pct",
		isfinite(nr.other_cpu_pct) ? json_real(nr.other_cpu_pct) : json_null(), "steal_pct",
		isfinite(nr.steal_pct) ? json_real(nr.steal_pct) : json_null(), "busy", nr.busy));
	if (r == 0) {
		json_t *b = json_object_get(l->busy, name);

		if (!b && (b = json_pack("[i, i]", 0, 0)) && json_object_set_new(l->busy, name, b) < 0)
			b = NULL;
		r = b && json_array_set_new(b, 0, json_integer(json_integer_value(json_array_get(b, 0)) + nr.busy)) == 0 &&
		    json_array_set_new(b, 1, json_integer(json_integer_value(json_array_get(b, 1)) + 1)) == 0 ? 0 : -ENOMEM;
	}
	if (r < 0) {
		log_error("%s: out of memory recording the host's noise", name);
		json_decref(doc);
		l->failed++;
		return;
	}
	if (*l->nic_note && lab_config_device(&c, LAB_NIC)) {
		char both[1024];

		snprintf(both, sizeof(both), "%s%s%s", note ? note : "", note ? "; " : "", l->nic_note);
		lab_keep(l, name, doc, &c, both);
		return;
	}
	lab_keep(l, name, doc, &c, note);
}

/* --baseline KEY=VALUE[,KEY=VALUE]: its pairs, each key a matrix key.
 * CMD_CONTINUE, or exit 2 after the message. */
static int baseline_pairs(const struct vmb_cmd *self, const char *spec, struct strv *pairs)
{
	char err[512];
	int r = lab_pairs_parse(spec, pairs, err, sizeof(err));

	if (r == -ENOMEM)
		return log_errno(r, "reading --baseline"), EXIT_FAILED;
	if (r < 0)
		return cmd_usage_error(self, "--baseline '%s': %s (or give host or none)", spec, err);
	return CMD_CONTINUE;
}

/* Whether every pair KEY=VALUE is the value of KEY in a stored result's labels. */
static bool labels_match(const struct strv *pairs, const json_t *labels)
{
	for (size_t i = 0; i < pairs->n; i++) {
		const char *eq = strchr(pairs->v[i], '=');
		char key[64];
		const char *have;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - pairs->v[i]), pairs->v[i]);
		have = json_string_value(json_object_get(labels, key));
		if (!have || strcmp(have, eq + 1))
			return false;
	}
	return true;
}

/* --baseline KEY=VALUE of lab run: exactly one configuration of the matrix,
 * one that can run here; its name into l->base. Before any boot. */
static int baseline_config(const struct vmb_cmd *self, struct lab *l, const struct lab_matrix *m, const char *spec)
{
	char names[1024], name[256], why[512];
	size_t off = 0, hits = 0, hit = 0;
	int ret = baseline_pairs(self, spec, &l->base_pairs);

	if (ret != CMD_CONTINUE)
		return ret;
	for (size_t i = 0; i < m->n; i++) {
		config_name(m, &m->configs[i], name, sizeof(name));
		str_appendf(names, sizeof(names), &off, "%s%s", i ? "; " : "", name);
		if (lab_config_matches(&m->configs[i], &l->base_pairs))
			hit = i, hits++;
	}
	if (!hits)
		return cmd_usage_error(self, "--baseline %s names no configuration of the matrix; its configurations: %s",
				       spec, names);
	if (hits > 1)
		return cmd_usage_error(self, "--baseline %s names %zu configurations of the matrix; name one with more "
					     "keys (KEY=VALUE,KEY=VALUE); its configurations: %s", spec, hits, names);
	config_name(m, &m->configs[hit], l->base, sizeof(l->base));
	if (!l->check_only && lab_config_unsupported(&m->configs[hit], why, sizeof(why)))
		return cmd_usage_error(self, "--baseline %s: %s cannot run here: %s", spec, l->base, why);
	return CMD_CONTINUE;
}

/* The operands in the order the comparison shows them: the baseline first
 * (base: an operand's name, or NULL for the first configuration), the
 * other configurations in their order, the host last; the host is aside
 * (beside them, setting no chart's scale) even when it is the baseline. */
static void lab_arrange(struct cmp_table *t, const char *base)
{
	size_t b = SIZE_MAX, h = SIZE_MAX;
	struct cmp_operand x;

	for (size_t o = 0; o < t->nops; o++) {
		if (!strcmp(t->ops[o].name, LAB_HOST))
			h = o;
		else if (b == SIZE_MAX && (!base || !strcmp(t->ops[o].name, base)))
			b = o;
	}
	if (base && !strcmp(base, LAB_HOST))
		b = h;
	if (h != SIZE_MAX) {
		t->ops[h].aside = true;
		x = t->ops[h]; /* the host to the end, the others keep their order */
		memmove(&t->ops[h], &t->ops[h + 1], (t->nops - h - 1) * sizeof(x));
		t->ops[t->nops - 1] = x;
		b = b == h ? t->nops - 1 : b > h && b != SIZE_MAX ? b - 1 : b;
	}
	if (b != SIZE_MAX && b) {
		x = t->ops[b];
		memmove(&t->ops[1], &t->ops[0], b * sizeof(x));
		t->ops[0] = x;
	}
	t->baseline = 0;
}

/* The baseline a run or report asked for, as it can be had: the host, a
 * configuration (its name), or NULL for the first configuration; said when
 * what was asked has no result. */
static const char *lab_pick(const struct cmp_table *t, const char *spec, const char *config)
{
	const char *want = !strcmp(spec, LAB_HOST) ? LAB_HOST : !strcmp(spec, "none") ? NULL : config;

	for (size_t o = 0; want && o < t->nops; o++)
		if (!strcmp(t->ops[o].name, want))
			return want;
	if (want && !strcmp(want, LAB_HOST))
		log_info("no host measurement (--suites has only what the lab measures from outside a guest, or the "
			 "session ran with --baseline none): the configurations are compared with the first");
	else if (want)
		log_warn("the baseline %s has no result (see above): the configurations are compared with the first", want);
	return NULL;
}

/* The suite the lead sentence prefers: that of the --baseline's key (disk=ide:
 * disk), else of the first matrix key whose value differs between the
 * configurations; NULL when no such key has a suite. */
static const char *lab_lead_suite(const struct cmp_table *t, const struct strv *base_pairs)
{
	for (size_t i = 0; i < base_pairs->n; i++) {
		char key[64];
		int k;

		snprintf(key, sizeof(key), "%.*s", (int)strcspn(base_pairs->v[i], "="), base_pairs->v[i]);
		k = lab_key_find(key);
		if (k >= 0 && lab_key_suite((enum lab_key)k))
			return lab_key_suite((enum lab_key)k);
	}
	for (int k = 0; k < LAB_NKEYS; k++) {
		const char *first = NULL;
		bool differs = false;

		if (!lab_key_suite((enum lab_key)k))
			continue;
		for (size_t o = 0; o < t->nops && !differs; o++) {
			const json_t *labels = json_object_get(json_array_get(t->ops[o].docs, 0), "labels");
			const char *v = json_string_value(json_object_get(labels, lab_key_name((enum lab_key)k)));

			if (t->ops[o].aside || !v)
				continue;
			differs = first && strcmp(first, v);
			first = first ? first : v;
		}
		if (differs)
			return lab_key_suite((enum lab_key)k);
	}
	return NULL;
}

/* What each configuration cost the host (hostcost.h), as a table; and
 * the lab's notes (user networking). */
static void print_host_cost(FILE *f, const struct cmp_table *t)
{
	struct hostcost_row *rows;
	size_t n;
	int cw = (int)strlen("configuration");
	bool wamp = false;

	for (size_t o = 0; o < t->nops; o++) {
		const char *note = json_string_value(json_object_get(json_array_get(t->ops[o].docs, 0), "lab_note"));

		if (note && strstr(note, "user networking"))
			fprintf(f, "%s: note: %s\n", t->ops[o].name, note);
		if ((int)strlen(t->ops[o].name) > cw)
			cw = (int)strlen(t->ops[o].name);
	}
	if (hostcost_rows(t, &rows, &n) < 0) {
		(void)log_errno(-ENOMEM, "computing the host's cost");
		return;
	}
	for (size_t i = 0; i < n; i++)
		wamp = wamp || rows[i].wamp_runs;
	if (n)
		fprintf(f, "\nhost cost: QEMU's CPU-seconds per second of each run (user + system), mean of "
			   "the runs%s\n%-*s %-18s %8s %8s %8s %5s%s\n", wamp ? "; wr.amp: the host's bytes written per "
			   "byte the guest's disk received (host_write_amplification)" : "", cw, "configuration", "item",
			"cpu/s", "user/s", "sys/s", "runs", wamp ? "   wr.amp" : "");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%-*s %-18s %8.2f %8.2f %8.2f %5zu", cw, rows[i].config, rows[i].item, rows[i].cpu,
			rows[i].user, rows[i].sys, rows[i].runs);
		if (wamp && rows[i].wamp_runs)
			fprintf(f, " %8.2f", rows[i].wamp);
		else if (wamp)
			fprintf(f, " %8s", "-");
		fputc('\n', f);
	}
	free(rows);
}

/* The comparison on stdout (unless the report goes there), its answer in
 * the first line, and the report. */
static int lab_show(const struct cmp_table *t, const char *out, bool html)
{
	struct cmp_filter flt = { .all = false };
	char lead[1024];

	if (!out || strcmp(out, "-")) {
		if (cmp_lead_sentence(t, lead, sizeof(lead)))
			printf("%s\n", lead);
		cmp_print(stdout, t, &flt, CMP_TEXT, false);
		print_host_cost(stdout, t);
	}
	if (!html)
		return EXIT_OK;
	return cmd_write_html(t, "vmbench lab", out, "vmbench-lab") < 0 ? EXIT_FAILED : EXIT_OK;
}

/* The operands of a run in the matrix's order (rounds shuffle the order in
 * which they ran, and so were added): insertion by the rank of their
 * names, the host after every configuration. */
static void lab_matrix_order(struct cmp_table *t, const struct lab_matrix *m)
{
	size_t *rank = calloc(t->nops ? t->nops : 1, sizeof(*rank));

	if (!rank)
		return; /* the order they ran in: still every operand */
	for (size_t o = 0; o < t->nops; o++) {
		rank[o] = m->n;
		for (size_t i = 0; i < m->n; i++) {
			char name[256];

			config_name(m, &m->configs[i], name, sizeof(name));
			if (!strcmp(name, t->ops[o].name))
				rank[o] = i;
		}
	}
	for (size_t a = 1; a < t->nops; a++)
		for (size_t b = a; b > 0 && rank[b - 1] > rank[b]; b--) {
			struct cmp_operand x = t->ops[b];
			size_t r = rank[b];

			t->ops[b] = t->ops[b - 1], rank[b] = rank[b - 1];
			t->ops[b - 1] = x, rank[b - 1] = r;
		}
	free(rank);
}

/* Lab results of one session (or older ones), made a comparison: the
 * order, the baseline, where the operands came from, what leads. */
static int lab_compare(struct cmp_table *t, const char *spec, const char *config, const struct strv *base_pairs)
{
	lab_arrange(t, lab_pick(t, spec, config));
	t->origin = CMP_FROM_LAB;
	if (cmp_build(t) < 0)
		return log_errno(-ENOMEM, "building the comparison");
	t->lead_suite = lab_lead_suite(t, base_pairs);
	return 0;
}

/* --suites: the items as `run` reads its words (suites_parse_items: commas
 * or spaces), checked before any boot and kept as "a,b,c", the form the
 * rest of the lab splits. */
static int suites_normalize(const struct vmb_cmd *self, struct optset *own)
{
	const struct opt_value *v = optset_get(own, "suites");
	struct strv items = { 0 };
	char why[512], *joined = NULL, *word;
	size_t len = 1, off = 0;
	int r;

	if (!v || !v->set)
		return CMD_CONTINUE;
	word = v->s;
	r = suites_parse_items(&word, 1, &items, why, sizeof(why));
	if (r < 0) {
		strv_clear(&items);
		return r == -ENOMEM ? EXIT_FAILED : cmd_usage_error(self, "--suites: %s", why);
	}
	for (size_t i = 0; i < items.n; i++)
		len += strlen(items.v[i]) + 1;
	joined = calloc(1, len);
	r = joined ? 0 : -ENOMEM;
	for (size_t i = 0; joined && i < items.n; i++)
		str_appendf(joined, len, &off, "%s%s", i ? "," : "", items.v[i]);
	strv_clear(&items);
	for (size_t i = 0; r == 0 && i < own->n; i++)
		if (!strcmp(own->opts[i].name, "suites"))
			r = optset_apply(own, i, joined, why, sizeof(why));
	free(joined);
	return r < 0 ? EXIT_FAILED : CMD_CONTINUE;
}

/* --suites balloon: a configuration with a balloon, whose mem holds
 * --balloon.size; before any boot. */
static int check_balloon(const struct vmb_cmd *self, const struct lab *l, const struct lab_matrix *m)
{
	bool any = false;
	char why[512];

	if (!items_name(l->suites, &balloon_suite))
		return CMD_CONTINUE;
	for (size_t i = 0; i < m->n; i++) {
		uint64_t mem = 0, size;
		double timeout;

		if (!lab_config_device(&m->configs[i], LAB_BALLOON))
			continue;
		any = true;
		if (parse_size(m->configs[i].v[LAB_MEM], 1, UINT64_MAX, &mem) == 0 &&
		    lab_balloon_opts(l->run_opts, mem, &size, &timeout, why, sizeof(why)) < 0)
			return cmd_usage_error(self, "%s", why);
	}
	if (!any)
		return cmd_usage_error(self, "--suites names balloon, and no configuration of the matrix has a balloon: give "
				       "the matrix key balloon=on (configurations with balloon=off skip it, saying so)");
	return CMD_CONTINUE;
}

/* --label: none of the keys the lab sets itself (a matrix key, the session). */
static int check_labels(const struct vmb_cmd *self, const struct optset *own)
{
	const struct strv *kv = &optset_get(own, "label")->kv;

	for (size_t i = 0; i < kv->n; i++) {
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)strcspn(kv->v[i], "="), kv->v[i]);
		if (lab_key_find(key) >= 0 || !strcmp(key, LAB_SESSION_LABEL) || !strcmp(key, "config") || !strcmp(key, "net_backend"))
			return cmd_usage_error(self, "--label %s: the lab sets the label %s itself (%s); choose another key",
					       kv->v[i], key, lab_key_find(key) >= 0 ? "a matrix key" : "the session or configuration");
	}
	return CMD_CONTINUE;
}

/* An option's parsed value as RUN's options object has it: true for a
 * flag, a number for counts and seconds, bytes for a size, the text for
 * text and lists (a list's "all" is the guest's CPUs there, not ours). */
static json_t *opt_json(const struct vmb_opt *o, const struct opt_value *v)
{
	switch (o->type) {
	case OPT_BOOL:
		return json_boolean(v->b);
	case OPT_INT:
		return json_integer(v->i);
	case OPT_DOUBLE:
		return json_real(v->d);
	case OPT_SIZE:
		return json_integer((json_int_t)v->u);
	case OPT_STRING:
	case OPT_LIST:
		return json_string(v->s);
	default:
		return NULL; /* no RUN option is of another type */
	}
}

/* What `run` checks of the measurement options beyond their rows, for the
 * host (its CPUs, when it is measured and here) and each configuration:
 * --cpus names vCPUs of every guest. */
static int check_measure(const struct vmb_cmd *self, const struct optset *own, const struct lab_matrix *m, bool here)
{
	/* the host is measured unless --baseline none (with KEY=VALUE, beside the configurations) */
	bool host = here && strcmp(optset_str(own, "baseline"), "none") != 0;
	unsigned *cpus = NULL;
	size_t ncpus = 0;
	int ret = run_check_measure(self, own, host, &cpus, &ncpus);

	for (size_t i = 0; ret == CMD_CONTINUE && i < m->n; i++) {
		int64_t smp;

		if (parse_i64(m->configs[i].v[LAB_SMP], 1, 4096, &smp) < 0)
			continue; /* the matrix parser's to refuse */
		for (size_t k = 0; ret == CMD_CONTINUE && k < ncpus; k++)
			if (cpus[k] >= smp)
				ret = cmd_usage_error(self, "--cpus: a guest of smp=%lld has no CPU %u (its CPUs are 0 to "
						      "%lld); give CPUs every configuration has", (long long)smp, cpus[k],
						      (long long)smp - 1);
	}
	free(cpus);
	return ret;
}

/* The options the guests and the host measure with, in the agent
 * protocol's RUN format: those of `run`'s rows that a host may set
 * (proto_run_options) and every --SUITE.OPTION, as given; what was not
 * given keeps run's default in each (--quick's under "quick"). NULL: out
 * of memory. */
static json_t *lab_run_options(const struct optset *own, const struct optset *suite_sets)
{
	json_t *o = json_object();
	int r = o ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < own->n; i++)
		for (size_t k = 0; r == 0 && own->vals[i].set && proto_run_options[k]; k++)
			if (!strcmp(own->opts[i].name, proto_run_options[k]) && strcmp(proto_run_options[k], "load"))
				r = json_object_set_new(o, own->opts[i].name, opt_json(&own->opts[i], &own->vals[i]));
	for (size_t s = 0; r == 0 && s < vmb_nsuites; s++)
		for (size_t i = 0; r == 0 && i < suite_sets[s].n; i++)
			if (suite_sets[s].vals[i].set) {
				char key[128];

				snprintf(key, sizeof(key), "%s%s", suite_sets[s].prefix, suite_sets[s].opts[i].name);
				r = json_object_set_new(o, key, opt_json(&suite_sets[s].opts[i], &suite_sets[s].vals[i]));
			}
	if (r < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Everything lab run checks and opens before the first boot: the matrix,
 * --kernel, --suites, -o, the store, the signal handlers. CMD_CONTINUE, or
 * an exit code after a message. */
/* What the NICs sit on: a tap on a link of their own where permitted. */
static void pick_nic_backend(struct lab *l)
{
	char err[512] = "";

	l->nic_be = lab_backend_pick(LAB_NIC, err, sizeof(err));
	if (l->nic_be && !l->nic_be->host_addr && *err)
		snprintf(l->nic_note, sizeof(l->nic_note), "user networking carries the NICs (%.400s): the "
			 "guest's NIC reaches nothing, and any traffic through it would measure QEMU's "
			 "user networking, the bottleneck, not the NIC model", err);
	if (*l->nic_note)
		log_info("%s", l->nic_note);
	else if (l->nic_be)
		log_info("NICs on the %s back end (a tap device in a network namespace per guest)", l->nic_be->name);
}

static int lab_prepare(const struct vmb_cmd *self, struct optset *own, struct lab *l, struct lab_matrix *m,
		       const char *out)
{
	char err[2048], dbpath[4096];
	int ret, r;

	if (!optset_str(own, "matrix"))
		return cmd_usage_error(self, "lab run needs --matrix, e.g. --matrix \"accel=tcg disk=ide,virtio-blk\"");
	if (lab_matrix_parse(optset_str(own, "matrix"), m, err, sizeof(err)) < 0)
		return cmd_usage_error(self, "%s", err);
	/* --disk-cache is the cache key's value where the configuration's part of the matrix gives none
	 * (a choice of the same rows) */
	for (size_t i = 0; i < m->n; i++)
		if (!(m->configs[i].given & (1u << LAB_CACHE)))
			snprintf(m->configs[i].v[LAB_CACHE], sizeof(m->configs[i].v[LAB_CACHE]), "%s",
				 optset_str(own, "disk-cache"));
	/* --disk-format is the image file's (backend=file): given where no configuration has one, it would be ignored */
	if (optset_get(own, "disk-format")->set) {
		size_t i = 0;

		while (i < m->n && strcmp(m->configs[i].v[LAB_BACKEND], LAB_BACKEND_FILE))
			i++;
		if (i == m->n)
			return cmd_usage_error(self, "--disk-format says the format of the scratch disk's image file "
					      "(backend=file), and no configuration of the matrix has one");
	}
	for (size_t i = 1; optset_str(own, "kernel") && i < m->n; i++)
		if (strcmp(m->configs[i].v[LAB_ARCH], m->configs[0].v[LAB_ARCH]))
			return cmd_usage_error(self, "--kernel names one kernel, the matrix has two architectures");
	ret = check_balloon(self, l, m);
	if (ret == CMD_CONTINUE)
		ret = check_labels(self, own);
	if (ret == CMD_CONTINUE && strcmp(optset_str(own, "baseline"), LAB_HOST) && strcmp(optset_str(own, "baseline"), "none"))
		ret = baseline_config(self, l, m, optset_str(own, "baseline"));
	if (ret == CMD_CONTINUE)
		ret = check_measure(self, own, m, !l->check_only);
	/* --rounds auto stops on the verdicts' power: with one operand there is none */
	if (ret == CMD_CONTINUE && l->autorounds && m->n < 2 && !strcmp(optset_str(own, "baseline"), "none"))
		ret = cmd_usage_error(self, "--rounds auto measures until the verdicts between configurations are "
				      "precise enough, and one configuration without a baseline has none: give another "
				      "configuration, a baseline, or --rounds N");
	if (ret != CMD_CONTINUE || l->check_only)
		return ret;
	for (size_t i = 0; i < m->n && !l->nic_be; i++)
		if (lab_config_device(&m->configs[i], LAB_NIC))
			pick_nic_backend(l);
	/* a report that cannot be written must not cost a long run */
	ret = cmd_check_output(self, out);
	if (ret != CMD_CONTINUE)
		return ret;
	if (db_default_path(optset_str(own, "db"), dbpath, sizeof(dbpath)) < 0)
		return cmd_usage_error(self, "no place for the result store: set --db, VMBENCH_DB or HOME");
	r = db_open(dbpath, true, &l->db);
	if (r < 0)
		return db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
	/* what a lab killed before it could clean up left in $TMPDIR (up to a scratch disk each) */
	lab_work_dirs_reclaim();
	/* a guest's channel closed under a send (QEMU killed) is an error, not our death */
	(void)signal(SIGPIPE, SIG_IGN);
	r = cmd_install_stop_signals(lab_kill_all);
	if (r < 0) {
		log_errno(r, "installing signal handlers");
		return EXIT_FAILED;
	}
	return CMD_CONTINUE;
}

/* The order of round k of several: shuffled (Fisher-Yates from the recorded
 * seed, so that drift hits every configuration alike), and l->group saying
 * so in every result of the round. */
static int lab_shuffle(struct lab *l, const struct lab_matrix *m, size_t *order, unsigned k, unsigned rounds,
		       uint64_t seed, uint64_t *rng)
{
	char group_id[32];
	json_t *names = json_array();

	for (size_t i = m->n; i > 1; i--) {
		size_t j, x;

		*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
		j = (size_t)((*rng >> 33) % i);
		x = order[i - 1], order[i - 1] = order[j], order[j] = x;
	}
	for (size_t i = 0; names && i < m->n; i++) {
		char nm[256];

		config_name(m, &m->configs[order[i]], nm, sizeof(nm));
		if (json_array_append_new(names, json_string(nm)) < 0) {
			json_decref(names);
			names = NULL; /* then l->group is NULL: the check below */
		}
	}
	snprintf(group_id, sizeof(group_id), "lab-%08llx", (unsigned long long)seed);
	json_decref(l->group);
	/* auto: the rounds so far, and the rule that decides how many */
	l->group = json_pack("{s:s, s:I, s:I, s:I, s:o}", "id", group_id, "round", (json_int_t)k, "rounds",
			     (json_int_t)(l->autorounds ? k : rounds), "seed", (json_int_t)seed, "order", names);
	if (l->group && l->autorounds &&
	    json_object_set_new(l->group, "auto", json_pack("{s:f}", "mdd_pct", optset_double(l->own, "mdd"))) < 0) {
		json_decref(l->group);
		l->group = NULL;
	}
	if (!l->group) {
		log_error("out of memory recording round %u", k);
		return -ENOMEM;
	}
	if (l->autorounds)
		log_info("round %u (--rounds auto, seed %llu)", k, (unsigned long long)seed);
	else
		log_info("round %u of %u (seed %llu)", k, rounds, (unsigned long long)seed);
	return 0;
}

/* How often the host was busy during each configuration's boots. */
static void say_busy(const struct lab *l)
{
	const char *k;
	json_t *v;

	json_object_foreach(l->busy, k, v)
		if (log_get_level() > LOG_ERROR)
			fprintf(stderr, "vmbench: %s: host busy during %lld of %lld boot%s\n", k,
				(long long)json_integer_value(json_array_get(v, 0)),
				(long long)json_integer_value(json_array_get(v, 1)),
				json_integer_value(json_array_get(v, 1)) == 1 ? "" : "s");
}

/* --rounds auto: the largest minimal detectable difference of the verdicts
 * of the headline metrics against the baseline, as the comparison at the
 * end will judge them (paired by round); INFINITY when none is known.
 * *which names it. */
static double lab_worst_mdd(const struct lab *l, const struct lab_matrix *m, char *which, size_t len)
{
	struct cmp_table t;
	double worst = -1;
	int r = 0;

	cmp_table_init(&t, suites_find);
	which[0] = '\0';
	for (size_t o = 0; r == 0 && o < l->t.nops; o++)
		r = cmp_add_operand(&t, l->t.ops[o].name, json_incref(l->t.ops[o].docs));
	/* the operands as the comparison at the end has them: its baseline */
	lab_matrix_order(&t, m);
	if (r == 0 && t.nops > 1 && lab_compare(&t, optset_str(l->own, "baseline"), l->base, &l->base_pairs) == 0)
		for (size_t i = 0; i < t.nrows; i++) {
			const struct cmp_row *row = &t.rows[i];

			for (size_t o = 0; row->headline && o < t.nops; o++) {
				struct cmp_verdict v;

				if (o == t.baseline || t.ops[o].aside)
					continue;
				cmp_judge(&t, row, o, &v);
				if (!v.comparable)
					continue;
				if (!(v.rc.mdd_pct <= worst)) {
					worst = v.rc.mdd_pct;
					snprintf(which, len, "%s.%s %s, %s vs %s", row->suite, row->test, row->metric,
						 t.ops[o].name, t.ops[t.baseline].name);
				}
			}
		}
	cmp_table_release(&t);
	return worst < 0 ? INFINITY : worst;
}

/* --rounds auto after round k: whether to stop, and why, said. */
static bool lab_auto_done(const struct lab *l, const struct lab_matrix *m, unsigned k, double started)
{
	double target = optset_double(l->own, "mdd"), mdd = INFINITY;
	char which[512] = "", said[600];

	/* no mdd before two rounds, but the budget holds from the first */
	if (k >= 2)
		mdd = lab_worst_mdd(l, m, which, sizeof(which));
	if (isfinite(mdd))
		snprintf(said, sizeof(said), "%.1f%% (%s)", mdd, which);
	else
		snprintf(said, sizeof(said), "unknown (%s)",
			 k < 2 ? "one round" : *which ? which : "no verdict judged");
	if (k >= 2 && !isfinite(mdd) && !*which) {
		/* more rounds would judge nothing either (no metric in common: boot against the host) */
		log_warn("--rounds auto: stopped after %u rounds: no verdict between the operands to judge, so no "
			 "minimal detectable difference to bring within --mdd %g%% (no headline metric measured on two "
			 "sides); give --rounds N for a number of rounds", k, target);
		return true;
	}
	if (isfinite(mdd))
		log_info("round %u: the largest minimal detectable difference is %s; --mdd %g%%", k, said, target);
	if (mdd <= target) {
		log_info("--rounds auto: stopped after %u rounds: every headline verdict's minimal detectable difference "
			 "is within --mdd %g%% (the largest %s)", k, target, said);
		return true;
	}
	/* another round as long as the mean one so far must end within --budget-total */
	if ((clock_s() - started) * (k + 1) / k > optset_double(l->own, "budget-total")) {
		log_info("--rounds auto: stopped after %u round%s: another would end after --budget-total %gs; the largest "
			 "minimal detectable difference is %s, not within --mdd %g%%", k, k == 1 ? "" : "s",
			 optset_double(l->own, "budget-total"), said, target);
		return true;
	}
	if (k == l->rounds)
		log_info("--rounds auto: stopped at the most rounds, %u; the largest minimal detectable difference is "
			 "%s, not within --mdd %g%%", k, said, target);
	return false;
}

/* Every round: the host (its runs are the baseline's replication), then
 * every configuration. EXIT_OK, or EXIT_FAILED after a message. */
static int lab_rounds(struct lab *l, const struct lab_matrix *m, size_t *order)
{
	unsigned rounds = l->rounds;
	uint64_t seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu, rng = seed;
	double started = clock_s();

	for (size_t i = 0; i < m->n; i++)
		order[i] = i;
	for (unsigned k = 1; k <= rounds && !vmb_stop_requested(); k++) {
		int r;

		l->round = k;
		if (rounds > 1 && lab_shuffle(l, m, order, k, rounds, seed, &rng) < 0)
			return EXIT_FAILED;
		r = strcmp(optset_str(l->own, "baseline"), "none") ? lab_baseline(l) : 0;
		if (r == -EINTR)
			break; /* said as an interruption by the caller */
		if (r < 0)
			return EXIT_FAILED;
		for (size_t i = 0; i < m->n && !vmb_stop_requested(); i++)
			lab_config(l, m, order[i]);
		if (l->autorounds && !vmb_stop_requested() && lab_auto_done(l, m, k, started))
			break;
	}
	return EXIT_OK;
}

/* What a lab run and a lab contend leave at their end: every QEMU killed
 * (and its files removed), and what they held released. */
static void lab_end(struct lab *l, struct lab_matrix *m)
{
	lab_kill_all();
	json_decref(l->group);
	json_decref(l->busy);
	strv_clear(&l->base_pairs);
	json_decref(l->run_opts);
	json_decref(l->failures);
	cmp_table_release(&l->t);
	lab_matrix_release(m);
	db_close(l->db);
}

/* session: NULL, or where the session's id goes.
 * With a session, no report is written: lab study draws its own. */
static int lab_run(const struct vmb_cmd *self, struct optset *own, const struct optset *suite_sets, const char *cache,
		   const char *image_dir, bool check_only, char *session, size_t session_len)
{
	struct lab l = { .own = own, .cache = cache, .image_dir = image_dir, .suites = optset_str(own, "suites"),
			 .check_only = check_only };
	struct lab_matrix m = { 0 };
	const char *out = optset_str(own, "output");
	size_t *order = NULL;
	int ret;

	cmp_table_init(&l.t, suites_find);
	lab_evidence_init(&l.evidence);
	l.failures = json_array();
	l.t.failures = l.failures;
	snprintf(l.disk_size, sizeof(l.disk_size), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	l.run_opts = lab_run_options(own, suite_sets);
	if (!l.run_opts) {
		log_error("out of memory");
		ret = EXIT_FAILED;
		goto out;
	}
	ret = cmd_rounds_from(self, own, "rounds", 100, &l.rounds, &l.autorounds);
	if (ret != CMD_CONTINUE)
		goto out;
	ret = lab_prepare(self, own, &l, &m, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (check_only) {
		ret = EXIT_OK;
		goto out;
	}
	session_new(l.session, sizeof(l.session));
	log_info("lab session %s=%s", LAB_SESSION_LABEL, l.session);
	l.busy = json_object();
	order = calloc(m.n ? m.n : 1, sizeof(*order));
	ret = order && l.busy && l.failures ? lab_rounds(&l, &m, order) : EXIT_FAILED;
	if (ret != EXIT_OK)
		goto out;
	say_busy(&l);
	if (vmb_stop_requested()) {
		log_error("interrupted");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	/* the host alone is no comparison of configurations */
	if (l.t.nops == (size_t)l.host && !l.failed) {
		log_error("no configuration of the matrix can run here (each was skipped, see why above)");
		ret = EXIT_FAILED;
		goto out;
	}
	lab_matrix_order(&l.t, &m);
	if (l.t.nops && lab_compare(&l.t, optset_str(own, "baseline"), l.base, &l.base_pairs) == 0)
		ret = lab_show(&l.t, out, !session);
	else if (l.t.nops)
		ret = EXIT_FAILED;
	else
		cmp_print_failures(stdout, &l.t); /* nothing to compare, but what failed */
	if (l.failed)
		ret = EXIT_FAILED;
out:
	if (*l.session)
		log_info("lab session %s=%s: 'vmbench lab report %s=%s' redraws this comparison", LAB_SESSION_LABEL,
			 l.session, LAB_SESSION_LABEL, l.session);
	if (session)
		snprintf(session, session_len, "%s", l.session);
	free(order);
	lab_end(&l, &m);
	return ret;
}

/* lab report, pass 1 (labels only): the lab runs a selector matches, by
 * session. A run of the lab has the label lab=SESSION, or (stored before
 * sessions had ids) config=NAME: those are one session, "". */
struct sessions {
	json_t *matched;  /* run number (text) -> its session */
	json_t *sessions; /* session -> {"runs": n, "started": the first's start}, first-seen order */
	char last[64];    /* the session of the newest matched run */
	int64_t last_id;
};

static const char *session_of(const json_t *labels)
{
	const char *s = json_string_value(json_object_get(labels, LAB_SESSION_LABEL));

	return s ? s : json_object_get(labels, "config") ? "" : NULL;
}

static int session_row(const struct db_row *row, void *arg)
{
	struct sessions *ss = arg;
	json_t *labels = row->labels_json ? json_loads(row->labels_json, 0, NULL) : NULL, *e;
	const char *sess = session_of(labels);
	char id[32];
	int r = 0;

	if (!sess || row->unreadable)
		goto out;
	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	e = json_object_get(ss->sessions, sess);
	if (!e && (!(e = json_pack("{s:i, s:s}", "runs", 0, "started", row->started ? row->started : "?")) ||
		   json_object_set_new(ss->sessions, sess, e) < 0)) {
		r = -ENOMEM;
		goto out;
	}
	if (json_object_set_new(e, "runs", json_integer(json_integer_value(json_object_get(e, "runs")) + 1)) < 0 ||
	    json_object_set_new(ss->matched, id, json_string(sess)) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (row->id > ss->last_id) {
		ss->last_id = row->id;
		snprintf(ss->last, sizeof(ss->last), "%s", sess);
	}
out:
	json_decref(labels);
	return r < 0 ? log_errno(r, "listing the lab sessions") : 0;
}

/* "lab=ID (5 runs, started T)" of a session, "" for those before session ids. */
static void session_words(const char *sess, const json_t *e, char *buf, size_t len)
{
	long long n = (long long)json_integer_value(json_object_get(e, "runs"));

	if (*sess)
		snprintf(buf, len, "%s=%s (%lld run%s, started %s)", LAB_SESSION_LABEL, sess, n, n == 1 ? "" : "s",
			 json_string_value(json_object_get(e, "started")));
	else
		snprintf(buf, len, "%lld run%s stored before lab sessions had an id", n, n == 1 ? "" : "s");
}

/* The last `max` sessions, "; "-separated, newest last. */
static void sessions_text(const json_t *sessions, size_t max, char *buf, size_t len)
{
	size_t i = 0, n = json_object_size(sessions), off = 0;
	const char *k;
	json_t *e;

	buf[0] = '\0';
	json_object_foreach((json_t *)sessions, k, e) {
		char one[256];

		if (i++ + max < n)
			continue;
		session_words(k, e, one, sizeof(one));
		str_appendf(buf, len, &off, "%s%s", off ? "; " : "", one);
	}
}

/* lab report, pass 2: the chosen session's documents that the selector
 * matched, and its host whatever the selector says (the host has no
 * matrix keys to match), grouped by configuration in first-seen order. */
struct grouping {
	struct db *db;
	const json_t *matched;
	const char *session;
	json_t *groups; /* configuration name -> array of documents */
	json_t *failures; /* the records of the stored failure markers */
	int r;
};

static int group_row(const struct db_row *row, void *arg)
{
	struct grouping *g = arg;
	const char *in, *cfg;
	char id[32];
	json_t *doc, *list;

	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	in = json_string_value(json_object_get(g->matched, id));
	if ((!in || strcmp(in, g->session)) && !*g->session)
		return 0;
	g->r = db_get(g->db, id, &doc);
	if (g->r < 0)
		return g->r;
	/* the configuration's name: the document's; a label before sessions had ids */
	cfg = json_string_value(json_object_get(doc, LAB_CONFIG_KEY));
	if (!cfg)
		cfg = json_string_value(json_object_get(json_object_get(doc, "labels"), "config"));
	if (!cfg || ((!in || strcmp(in, g->session)) && strcmp(cfg, LAB_HOST))) {
		json_decref(doc);
		return 0;
	}
	if (json_object_get(doc, "lab_failure")) {
		json_t *rec = doc_lab_failure(doc);

		json_decref(doc);
		if (!rec || json_array_append_new(g->failures, rec) < 0)
			return g->r = log_errno(-ENOMEM, "listing the stored failures");
		return 0;
	}
	list = json_object_get(g->groups, cfg);
	if (!list) {
		list = json_array();
		if (!list || json_object_set_new(g->groups, cfg, list) < 0) {
			json_decref(doc);
			return g->r = log_errno(-ENOMEM, "grouping the stored runs");
		}
	}
	if (json_array_append_new(list, doc) < 0)
		return g->r = log_errno(-ENOMEM, "grouping the stored runs");
	return 0;
}

/* --baseline KEY=VALUE of lab report: the one configuration of the session whose labels have them. */
static int baseline_group(const struct vmb_cmd *self, const json_t *groups, const char *spec, const struct strv *pairs,
			  const char **name)
{
	char names[1024];
	size_t off = 0, hits = 0;
	const char *k;
	json_t *v;

	names[0] = '\0';
	json_object_foreach((json_t *)groups, k, v) {
		if (!strcmp(k, LAB_HOST))
			continue;
		str_appendf(names, sizeof(names), &off, "%s%s", off ? "; " : "", k);
		if (labels_match(pairs, json_object_get(json_array_get(v, 0), "labels")))
			*name = k, hits++;
	}
	if (hits == 1)
		return CMD_CONTINUE;
	return cmd_usage_error(self, "--baseline %s names %s of the session's configurations (%s)%s", spec,
			       hits ? "more than one" : "none", names, hits ? "; name one with more keys" : "");
}

/* lab report [SELECTOR]: the comparison and HTML report of a session again,
 * from the store: the last session, or the last one with runs the selector
 * matches (said when it matches several). */
static int lab_report(const struct vmb_cmd *self, struct optset *own, const char *selector)
{
	struct sessions ss = { .matched = json_object(), .sessions = json_object() };
	struct grouping g = { 0 };
	struct strv filter = { 0 }, pairs = { 0 }, mine = { 0 };
	struct cmp_table t;
	char path[4096], list[2048], kv[128];
	const char *k, *out = optset_str(own, "output"), *spec = optset_str(own, "baseline"), *base = NULL;
	char *sel = selector ? lab_selector(selector) : NULL;
	json_t *v;
	int ret, r;

	cmp_table_init(&t, suites_find);
	g.groups = json_object();
	g.failures = json_array();
	t.failures = g.failures;
	if (!g.groups || !g.failures || !ss.matched || !ss.sessions || (selector && !sel)) {
		ret = EXIT_FAILED;
		goto out;
	}
	r = sel ? db_parse_selector(sel, &filter) : 0;
	if (r < 0) {
		ret = cmd_selector_error(self, selector, r);
		goto out;
	}
	ret = strcmp(spec, LAB_HOST) && strcmp(spec, "none") ? baseline_pairs(self, spec, &pairs) : CMD_CONTINUE;
	if (ret == CMD_CONTINUE)
		ret = cmd_check_output(self, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (db_default_path(optset_str(own, "db"), path, sizeof(path)) < 0) {
		ret = cmd_usage_error(self, "lab report: no result store: set --db, VMBENCH_DB or HOME");
		goto out;
	}
	r = db_open(path, false, &g.db);
	if (r == -ENOENT) {
		ret = cmd_usage_error(self, "lab report: no result store at %s", path);
		goto out;
	}
	if (r < 0) {
		ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	if (db_list(g.db, &filter, session_row, &ss) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(ss.sessions)) {
		/* suggest only what exists: the store's last sessions */
		struct sessions all = { .matched = json_object(), .sessions = json_object() };

		list[0] = '\0';
		if (selector && all.matched && all.sessions && db_list(g.db, NULL, session_row, &all) == 0)
			sessions_text(all.sessions, 5, list, sizeof(list));
		json_decref(all.matched);
		json_decref(all.sessions);
		if (!selector || !*list)
			ret = cmd_usage_error(self, "lab report: the store %s has no lab run; 'vmbench lab run --matrix SPEC' "
						    "makes one", path);
		else
			ret = cmd_usage_error(self, "lab report: no lab run has the labels %s; the store's last lab sessions: "
						    "%s", selector, list);
		goto out;
	}
	if (selector && json_object_size(ss.sessions) > 1) {
		sessions_text(ss.sessions, 10, list, sizeof(list));
		log_warn("the labels %s match runs of %zu lab sessions (%s); reporting the last one, %s%s%s (give %s=ID "
			 "to choose)", selector, json_object_size(ss.sessions), list, *ss.last ? LAB_SESSION_LABEL : "",
			 *ss.last ? "=" : "", *ss.last ? ss.last : "the runs stored before sessions had an id",
			 LAB_SESSION_LABEL);
	}
	if (*ss.last)
		log_info("lab session %s=%s", LAB_SESSION_LABEL, ss.last);
	/* pass 2: the session (its host included), or the runs of before sessions that matched */
	snprintf(kv, sizeof(kv), "%s=%s", LAB_SESSION_LABEL, ss.last);
	if (*ss.last && strv_push(&mine, kv) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	g.matched = ss.matched;
	g.session = ss.last;
	if (db_list(g.db, *ss.last ? &mine : &filter, group_row, &g) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (json_array_size(g.failures) && !json_object_size(g.groups)) {
		/* every boot of it failed, and no host: nothing to compare, but what failed */
		cmp_print_failures(stdout, &t);
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(g.groups) ||
	    (json_object_size(g.groups) == 1 && json_object_get(g.groups, LAB_HOST) && !json_array_size(g.failures))) {
		if (*ss.last)
			ret = cmd_usage_error(self, "lab report: the labels %s match no configuration of the session, only its "
						    "host; 'vmbench lab report %s' reports the whole session",
					      selector ? selector : "", kv);
		else
			ret = cmd_usage_error(self, "lab report: the labels %s match no configuration, only the host; select "
						    "a configuration by its matrix keys, e.g. accel=tcg", selector ? selector : "");
		goto out;
	}
	if (pairs.n) {
		ret = baseline_group(self, g.groups, spec, &pairs, &base);
		if (ret != CMD_CONTINUE)
			goto out;
	}
	r = 0;
	json_object_foreach(g.groups, k, v)
		if (r == 0 && (strcmp(k, LAB_HOST) || strcmp(spec, "none")))
			r = cmp_add_operand(&t, k, json_incref(v));
	if (r < 0 || lab_compare(&t, spec, base, &pairs) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	ret = lab_show(&t, out, true);
out:
	cmp_table_release(&t);
	json_decref(g.groups);
	json_decref(ss.matched);
	json_decref(ss.sessions);
	json_decref(g.failures);
	db_close(g.db);
	strv_clear(&filter);
	strv_clear(&pairs);
	strv_clear(&mine);
	free(sel);
	return ret;
}

static int lab_contend_cmd(const struct vmb_cmd *self, struct optset *own, const struct optset *suite_sets,
			   const char *cache, bool check_only, char *session, size_t session_len);
/* lab contend's options, which lab run does not take;
 * and lab run's options, which lab contend does not take */
static const char *const lab_contend_only[] = { "guests", "policy", "shares", "reserve", "load", "host-cpus",
						 "rt-threads", "rt-priority" };
static const size_t lab_ncontend_only = ARRAY_SIZE(lab_contend_only);
static const char *const lab_contend_refused[] = { "boots", "baseline", "mdd", "budget-total", "retries" };

/* What run and contend begin with: --quick's defaults,
 * and the cache's directory (--cache, else the user's).
 * -1 when out of memory. */
static int quick_and_cache(struct optset *own, char *cache, size_t len)
{
	if (optset_bool(own, "quick") && optset_apply_quick(own) < 0)
		return -1;
	if (optset_str(own, "cache"))
		snprintf(cache, len, "%s", optset_str(own, "cache"));
	else
		cache_home(cache, len);
	return 0;
}

int lab_study_run(const struct vmb_cmd *self, int argc, char **argv, bool check_only, char *session, size_t len)
{
	struct optset own = { 0 }, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct strv pos = { 0 };
	char cache[4096];
	int ret;

	*session = '\0';
	if (!suite_sets)
		return EXIT_FAILED;
	ret = cmd_parse(self, argc, argv, &own, suite_sets, &pos);
	if (ret == CMD_CONTINUE)
		ret = suites_normalize(self, &own);
	if (ret != CMD_CONTINUE)
		goto out;
	/* a word of the study's options that is no option's would be dropped */
	if (pos.n > 1) {
		ret = cmd_usage_error(self, "unexpected argument '%s': an experiment's words are options of 'lab %s'",
				      pos.v[1], pos.v[0]);
		goto out;
	}
	if (quick_and_cache(&own, cache, sizeof(cache)) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (pos.n && !strcmp(pos.v[0], "contend")) {
		ret = lab_contend_cmd(self, &own, suite_sets, cache, check_only, session, len);
		goto out;
	}
	for (size_t i = 0; i < lab_ncontend_only; i++)
		if (optset_get(&own, lab_contend_only[i])->set) {
			ret = cmd_usage_error(self, "--%s is an option of 'lab contend' (command = contend); a lab run "
					      "does not take it", lab_contend_only[i]);
			goto out;
		}
	ret = lab_run(self, &own, suite_sets, cache, optset_str(&own, "image-dir"), check_only, session, len);
out:
	optset_release(&own);
	for (size_t i = 0; i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	free(suite_sets);
	strv_clear(&pos);
	return ret;
}




/* A guest's document of one cell: said on stdout (its host figures and
 * the guests' headlines), stored, added to the comparison. */
struct contend_keep {
	struct lab *l;
	const struct lab_config *c;
};

static void contend_say(const json_t *doc)
{
	const json_t *labels = json_object_get(doc, "labels"), *s, *t, *c, *m;
	size_t si, ti, ci, mi;

	json_array_foreach(json_object_get(doc, "suites"), si, s)
		json_array_foreach(json_object_get(s, "tests"), ti, t)
			json_array_foreach(json_object_get(t, "cases"), ci, c) {
				const char *suite = json_string_value(json_object_get(s, "name")) ?: "";

				printf("contend round=%lld policy=%s load=%s guest=%s %s.%s",
				       (long long)json_integer_value(json_object_get(json_object_get(doc, "run_group"), "round")),
				       json_string_value(json_object_get(labels, "policy")) ?: "?",
				       json_string_value(json_object_get(labels, "load")) ?: "?",
				       json_string_value(json_object_get(labels, "guest")) ?: "?", suite,
				       json_string_value(json_object_get(t, "name")) ?: "");
				if (!strcmp(suite, contend_suite.name))
					printf(" item=%s", json_string_value(json_object_get(json_object_get(c, "params"),
										   CONTEND_ITEM_PARAM)) ?: "?");
				json_array_foreach(json_object_get(c, "metrics"), mi, m) {
					const char *name = json_string_value(json_object_get(m, "name")) ?: "";
					const json_t *mean = json_object_get(json_object_get(m, "summary"), "mean");

					if (strcmp(suite, contend_suite.name) && !json_is_true(json_object_get(m, "headline")) &&
					    strcmp(name, "latency_p99"))
						continue;
					if (json_is_number(mean))
						printf(" %s=%.6g", name, json_number_value(mean));
				}
				printf("\n");
			}
	fflush(stdout);
}

static void contend_keep_doc(void *arg, json_t *doc)
{
	struct contend_keep *k = arg;
	const json_t *labels = json_object_get(doc, "labels");
	char name[128];

	snprintf(name, sizeof(name), "policy=%s load=%s guest=%s", json_string_value(json_object_get(labels, "policy")) ?: "?",
		 json_string_value(json_object_get(labels, "load")) ?: "?",
		 json_string_value(json_object_get(labels, "guest")) ?: "?");
	if (log_get_level() > LOG_ERROR)
		contend_say(doc);
	lab_keep(k->l, name, doc, k->c, NULL);
}

/* A guest that failed to boot: its console and QEMU's output kept, as lab run's */
static void contend_failed(void *arg, unsigned guest, const struct lab_failure *f, const char *err)
{
	struct contend_keep *k = arg;
	char name[64];

	snprintf(name, sizeof(name), "guest %u", guest);
	k->l->round = 1;
	lab_failed_try(k->l, name, 1, 1, f, err);
}

/* The operands by policy, load and guest (they were added in the cells'
 * shuffled order): fair's guests first, each policy's loads rising. */
static long contend_rank(const struct cmp_operand *op)
{
	const json_t *labels = json_object_get(json_array_get(op->docs, 0), "labels");
	int64_t load = 0, guest = 0;
	int p = contend_policy_parse(json_string_value(json_object_get(labels, "policy")) ?: "");

	(void)parse_i64(json_string_value(json_object_get(labels, "load")) ?: "0", 0, 100, &load);
	(void)parse_i64(json_string_value(json_object_get(labels, "guest")) ?: "0", 0, 1000, &guest);
	return ((long)(p < 0 ? CONTEND_NPOLICIES : p) * 1000 + (long)load) * 1000 + (long)guest;
}

static void contend_order(struct cmp_table *t)
{
	for (size_t a = 1; a < t->nops; a++)
		for (size_t b = a; b > 0 && contend_rank(&t->ops[b - 1]) > contend_rank(&t->ops[b]); b--) {
			struct cmp_operand x = t->ops[b];

			t->ops[b] = t->ops[b - 1];
			t->ops[b - 1] = x;
		}
}

/* A comma-separated list of numbers lo..hi into v (at most max). */
static int contend_list(const char *s, unsigned lo, unsigned hi, unsigned *v, unsigned max, unsigned *n)
{
	*n = 0;
	for (const char *p = s; p && *p; p += strcspn(p, ","), p += *p == ',') {
		char w[24];
		int64_t x;

		/* a longer word cut to fit would be another number (a load 000...0101 as 0) */
		if (strcspn(p, ",") >= sizeof(w))
			return -EINVAL;
		snprintf(w, sizeof(w), "%.*s", (int)strcspn(p, ","), p);
		if (*n == max || parse_i64(w, lo, hi, &x) < 0)
			return -EINVAL;
		v[(*n)++] = (unsigned)x;
	}
	return *n ? 0 : -EINVAL;
}

/* A net item (net.udp_rr) in lab contend is measured from the host to
 * each guest (netdir=guest-server: the host's client in the guest's
 * network namespace, the guest's serve beside the guest's LOAD), over a
 * NIC: virtio-net when --matrix names none. A usage error for a matrix
 * that says otherwise; c is changed only with apply. */
static int contend_net_config(const struct vmb_cmd *self, struct lab *l, struct lab_config *c, bool apply)
{
	char what[64] = "";

	for (const char *p = l->suites; p && *p && !*what; p += strcspn(p, ","), p += *p == ',') {
		const struct vmb_suite *s;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		s = lab_item_suite(what);
		if (!s || !(s->flags & VMB_SUITE_NET_PEER))
			what[0] = '\0';
	}
	if (!*what)
		return CMD_CONTINUE;
	if ((c->given & (1u << LAB_NETDIR)) && strcmp(c->v[LAB_NETDIR], "guest-server"))
		return cmd_usage_error(self, "--suites %s: lab contend measures it from the host to each guest, beside "
				       "the guest's load (netdir=guest-server); leave netdir out of --matrix or give "
				       "netdir=guest-server", what);
	if (!lab_config_device(c, LAB_NIC) && (c->given & (1u << LAB_NIC)))
		return cmd_usage_error(self, "--suites %s measures over each guest's NIC: give a NIC model in --matrix "
				       "(e.g. nic=virtio-net), not nic=none", what);
	if (!apply)
		return CMD_CONTINUE;
	snprintf(c->v[LAB_NETDIR], sizeof(c->v[LAB_NETDIR]), "guest-server");
	if (!lab_config_device(c, LAB_NIC)) {
		/* a NIC of our own choice only where the host reaches the guest over it */
		char why[512];
		const struct lab_backend *be = lab_backend_pick(LAB_NIC, why, sizeof(why));

		if (be && be->host_addr) {
			snprintf(c->v[LAB_NIC], sizeof(c->v[LAB_NIC]), "virtio-net");
			log_info("%s: each guest gets a virtio-net NIC (--matrix names none)", what);
		} else {
			bool other = false;

			for (const char *p = l->suites; p && *p; p += strcspn(p, ","), p += *p == ',') {
				const struct vmb_suite *s;

				snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
				s = lab_item_suite(what);
				other = other || !s || !(s->flags & VMB_SUITE_NET_PEER);
			}
			/* its net items are skipped after the boot, saying why; with nothing else, nothing boots */
			if (!other) {
				log_error("--suites %s: nothing to measure: the host cannot reach a guest over a NIC here (%s)",
					  l->suites, *why ? why : "no link back end");
				return EXIT_FAILED;
			}
			log_info("the net items: the host cannot reach a guest over a NIC here (%s): the guests get none",
				 *why ? why : "no link back end");
			return CMD_CONTINUE;
		}
	}
	if (!l->nic_be)
		pick_nic_backend(l);
	return CMD_CONTINUE;
}

/* session: NULL, or where the session's id goes.
 * With a session, no report is written: lab study draws its own. */
static int lab_contend_cmd(const struct vmb_cmd *self, struct optset *own, const struct optset *suite_sets,
			   const char *cache, bool check_only, char *session, size_t session_len)
{
	/* the study's composite load and its latency probe, unless --suites names others */
	struct lab l = { .own = own, .cache = cache, .image_dir = optset_str(own, "image-dir"),
			 .suites = optset_get(own, "suites")->set ? optset_str(own, "suites") : LAB_CONTEND_SUITES,
			 .check_only = check_only };
	struct lab_matrix m = { 0 };
	struct contend_opts co = { .rt_priority = (unsigned)optset_int(own, "rt-priority"),
				   .rt_all = !strcmp(optset_str(own, "rt-threads"), "all") };
	struct lab_run_opts ro = { 0 };
	struct lab_config c;
	cpu_set_t cpus;
	const char *out = optset_str(own, "output"), *image;
	char err[2048], name[256];
	unsigned n;
	int ret, r;

	cmp_table_init(&l.t, suites_find);
	lab_evidence_init(&l.evidence);
	l.failures = json_array();
	l.t.failures = l.failures;
	snprintf(l.disk_size, sizeof(l.disk_size), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	l.run_opts = lab_run_options(own, suite_sets);
	if (!l.run_opts || !l.failures) {
		log_error("out of memory");
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lab_contend_refused); i++)
		if (optset_get(own, lab_contend_refused[i])->set) {
			ret = cmd_usage_error(self, "--%s is an option of 'lab run'; lab contend boots its guests once and "
					      "measures every policy on them, %s", lab_contend_refused[i],
					      "replicated by --rounds N");
			goto out;
		}
	/* the guests' items: what the agents run, not what the host measures around a boot */
	for (const char *p = l.suites; p && *p; p += strcspn(p, ","), p += *p == ',') {
		char what[64];

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		if (lab_host_measured(what)) {
			ret = cmd_usage_error(self, "--suites %s: lab contend runs the guests' own suites together; %s is "
					      "measured by 'lab run' around a guest", what, what);
			goto out;
		}
	}
	co.spec.nguests = n = (unsigned)optset_int(own, "guests");
	co.spec.reserve_pct = (unsigned)optset_int(own, "reserve");
	for (unsigned i = 0; i < CONTEND_MAX_GUESTS; i++)
		co.spec.shares[i] = 1;
	if (optset_str(own, "shares")) {
		unsigned k;

		if (contend_list(optset_str(own, "shares"), 1, 100, co.spec.shares, CONTEND_MAX_GUESTS, &k) < 0 || k != n) {
			ret = cmd_usage_error(self, "--shares '%s': give one weight from 1 to 100 per guest (--guests %u), "
					      "e.g. %s", optset_str(own, "shares"), n, n == 3 ? "1,1,2" : "1,1,1,2");
			goto out;
		}
	}
	for (const char *p = optset_str(own, "policy"); p && *p; p += strcspn(p, ","), p += *p == ',') {
		char w[32];
		int pol;

		snprintf(w, sizeof(w), "%.*s", (int)strcspn(p, ","), p);
		pol = contend_policy_parse(w);
		if (pol < 0) {
			ret = cmd_usage_error(self, "--policy: no policy '%s'; give a list of %s", w, CONTEND_POLICY_CHOICES);
			goto out;
		}
		co.policy[pol] = true;
	}
	{
		int any = 0;

		for (int i = 0; i < CONTEND_NPOLICIES; i++)
			any |= co.policy[i];
		if (!any) {
			ret = cmd_usage_error(self, "--policy '%s': give at least one of %s", optset_str(own, "policy") ?: "",
					      CONTEND_POLICY_CHOICES);
			goto out;
		}
	}
	if (optset_get(own, "shares")->set && !co.policy[CONTEND_WEIGHTS]) {
		ret = cmd_usage_error(self, "--shares are the weights policy's: add weights to --policy");
		goto out;
	}
	/* the main loop must preempt a spinning vCPU: at one priority SCHED_FIFO never does (the guest hangs) */
	if (co.policy[CONTEND_RT] && co.rt_all && co.rt_priority >= 99) {
		ret = cmd_usage_error(self, "--rt-priority %u with --rt-threads all leaves QEMU's other threads no "
				      "priority above the vCPU threads' (the guest's timers would wait for a spinning "
				      "vCPU); give --rt-priority 98 at most, or --rt-threads vcpus", co.rt_priority);
		goto out;
	}
	if (optset_get(own, "reserve")->set && !co.policy[CONTEND_RESERVATION]) {
		ret = cmd_usage_error(self, "--reserve is the reservation policy's: add reservation to --policy");
		goto out;
	}
	if (contend_list(optset_str(own, "load"), 0, 100, co.loads, CONTEND_MAX_LOADS, &co.nloads) < 0) {
		ret = cmd_usage_error(self, "--load '%s': give up to %d loads from 0 to 100 (%% of each vCPU), e.g. "
				      "50,80,95", optset_str(own, "load"), CONTEND_MAX_LOADS);
		goto out;
	}
	/* a load twice would be two cells with one label: one operand of two runs a round */
	for (unsigned i = 1; i < co.nloads; i++)
		for (unsigned j = 0; j < i; j++)
			if (co.loads[i] == co.loads[j]) {
				ret = cmd_usage_error(self, "--load '%s': %u is there twice; give each load once",
						      optset_str(own, "load"), co.loads[i]);
				goto out;
			}
	CPU_ZERO(&cpus);
	if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
		CPU_ZERO(&cpus);
	if (optset_str(own, "host-cpus")) {
		unsigned *list = NULL;
		size_t nl = 0;
		cpu_set_t mine = cpus;

		if (parse_cpu_list(optset_str(own, "host-cpus"), &list, &nl) < 0 || !nl) {
			free(list);
			ret = cmd_usage_error(self, "--host-cpus '%s': give host CPUs, e.g. 0 or 0-1", optset_str(own, "host-cpus"));
			goto out;
		}
		CPU_ZERO(&cpus);
		for (size_t i = 0; i < nl; i++) {
			/* which CPUs this process may run on is this machine's: the check leaves it to the run */
			if (list[i] >= CPU_SETSIZE || (!check_only && !CPU_ISSET(list[i], &mine))) {
				ret = cmd_usage_error(self, "--host-cpus: CPU %u is not one this process may run on", list[i]);
				free(list);
				goto out;
			}
			CPU_SET(list[i], &cpus);
		}
		free(list);
		co.host_cpus = optset_str(own, "host-cpus");
	}
	co.spec.ncpus = (unsigned)CPU_COUNT(&cpus);
	if (co.spec.ncpus < 1)
		co.spec.ncpus = 1;
	/* without --host-cpus the CPUs are this machine's: the check leaves the quota to the run */
	if (co.policy[CONTEND_RESERVATION] && (!check_only || co.host_cpus)) {
		/* each other guest's cap must be a quota the kernel takes, or the
		 * promise would not be the one the knobs keep */
		struct cg_knob k[CONTEND_MAX_GUESTS];

		if (contend_knobs(CONTEND_RESERVATION, &co.spec, CONTEND_PERIOD_US, k) < 0) {
			ret = cmd_usage_error(self, "--reserve %u with --guests %u on %u host CPU%s leaves each other guest "
					      "less than the kernel's least CFS quota (1 ms of %u ms); give --reserve %u "
					      "at most", co.spec.reserve_pct, n, co.spec.ncpus, co.spec.ncpus == 1 ? "" : "s",
					      CONTEND_PERIOD_US / 1000, contend_reserve_max(&co.spec, CONTEND_PERIOD_US));
			goto out;
		}
	}
	if (optset_str(own, "matrix")) {
		/* one configuration, said before the store is opened (lab_prepare) */
		struct lab_matrix one = { 0 };

		if (lab_matrix_parse(optset_str(own, "matrix"), &one, err, sizeof(err)) == 0 && one.n != 1) {
			ret = cmd_usage_error(self, "lab contend boots --guests of one configuration, and --matrix has %zu; "
					      "give one value per key", one.n);
			lab_matrix_release(&one);
			goto out;
		}
		if (one.n == 1 && (ret = contend_net_config(self, &l, &one.configs[0], false)) != CMD_CONTINUE) {
			lab_matrix_release(&one);
			goto out;
		}
		lab_matrix_release(&one);
	}
	ret = cmd_rounds_from(self, own, "rounds", 100, &l.rounds, &l.autorounds);
	if (ret == CMD_CONTINUE && l.autorounds)
		ret = cmd_usage_error(self, "--rounds auto is lab run's; lab contend takes --rounds N");
	if (ret != CMD_CONTINUE)
		goto out;
	ret = lab_prepare(self, own, &l, &m, out);
	if (ret != CMD_CONTINUE)
		goto out;
	if (m.n != 1) {
		ret = cmd_usage_error(self, "lab contend boots --guests of one configuration, and --matrix has %zu; give "
				      "one value per key", m.n);
		goto out;
	}
	if (check_only) {
		ret = EXIT_OK;
		goto out;
	}
	c = m.configs[0];
	ret = contend_net_config(self, &l, &c, true);
	if (ret != CMD_CONTINUE)
		goto out;
	{
		/* a guest cannot take more of the host than its vCPUs: the promise's bound */
		int64_t smp;

		co.spec.vcpus = parse_i64(c.v[LAB_SMP], 1, 256, &smp) == 0 ? (unsigned)smp : 0;
	}
	config_name(&m, &c, name, sizeof(name));
	if (lab_config_unsupported(&c, err, sizeof(err))) {
		log_error("%s: %s", name, err);
		ret = EXIT_FAILED;
		goto out;
	}
	if (!strcmp(c.v[LAB_ACCEL], "auto"))
		snprintf(c.v[LAB_ACCEL], sizeof(c.v[0]), "tcg");
	image = lab_image(&l, name, &c);
	if (!image) {
		ret = EXIT_FAILED;
		goto out;
	}
	session_new(l.session, sizeof(l.session));
	log_info("lab session %s=%s", LAB_SESSION_LABEL, l.session);
	ro = (struct lab_run_opts){ .image_dir = image, .suites = l.suites, .boots = 1, .run_opts = l.run_opts,
				    .disk_size = l.disk_size, .disk_format = optset_str(own, "disk-format"),
				    .disk_cache = optset_str(own, "disk-cache"),
				    .hello_timeout_ms = (int)(optset_double(own, "hello-timeout") * 1000),
				    .run_table = run_opts, .nic_backend = l.nic_be ? l.nic_be->name : NULL };
	co.affinity = co.host_cpus ? &cpus : NULL;
	co.c = &c;
	co.ro = &ro;
	co.rounds = l.rounds;
	co.seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu;
	co.keep = contend_keep_doc;
	co.failed = contend_failed;
	co.arg = &(struct contend_keep){ .l = &l, .c = &c };
	r = lab_contend(&co, err, sizeof(err));
	if (r == -EINTR || vmb_stop_requested()) {
		log_error("interrupted");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	if (r < 0) {
		log_error("%s: %s", name, err);
		ret = EXIT_FAILED;
		goto out;
	}
	ret = EXIT_OK;
	contend_order(&l.t);
	if (l.t.nops && lab_compare(&l.t, "none", "", &l.base_pairs) == 0)
		ret = lab_show(&l.t, out, !session);
	if (l.failed)
		ret = EXIT_FAILED;
out:
	if (*l.session)
		log_info("lab session %s=%s: 'vmbench compare policy=fair,guest=1 policy=rt,guest=1' pairs the policies "
			 "by round", LAB_SESSION_LABEL, l.session);
	if (session)
		snprintf(session, session_len, "%s", l.session);
	lab_end(&l, &m);
	return ret;
}

static int cmd_lab(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own = { 0 }, *suite_sets = calloc(vmb_nsuites, sizeof(*suite_sets));
	struct strv pos = { 0 };
	char cache[4096], out[4200], err[1024];
	int ret, rebuilt = 0;

	if (!suite_sets)
		return EXIT_FAILED;
	ret = cmd_parse(self, argc, argv, &own, suite_sets, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	/* the user's labels (lab study gives its runs study=, experiment=, study_run= through lab_study_run) */
	ret = cmd_check_user_labels(self, &optset_get(&own, "label")->kv);
	if (ret == CMD_CONTINUE)
		ret = suites_normalize(self, &own);
	if (ret != CMD_CONTINUE)
		goto out;
	if (strcmp(pos.v[0], "image") && strcmp(pos.v[0], "run") && strcmp(pos.v[0], "report") &&
	    strcmp(pos.v[0], "contend") && strcmp(pos.v[0], "study")) {
		ret = cmd_usage_error(self, "no lab command '%s'; 'image' builds the guest image, 'run' runs a matrix, "
				      "'contend' runs several guests at once under the host's scheduling policies, "
				      "'report SELECTOR' redraws a run's comparison from the store, 'study FILE' "
				      "runs a published study's experiments", pos.v[0]);
		goto out;
	}
	if (strcmp(pos.v[0], "study") &&
	    (optset_bool(&own, "list") || optset_bool(&own, "plan") || optset_get(&own, "experiment")->set)) {
		ret = cmd_usage_error(self, "--%s is an option of 'lab study'; 'lab %s' does not take it",
				      optset_bool(&own, "list")   ? "list"
				      : optset_bool(&own, "plan") ? "plan"
								  : "experiment",
				      pos.v[0]);
		goto out;
	}
	for (size_t i = 0; strcmp(pos.v[0], "contend") && i < ARRAY_SIZE(lab_contend_only); i++)
		if (optset_get(&own, lab_contend_only[i])->set) {
			ret = cmd_usage_error(self, "--%s is an option of 'lab contend'; 'lab %s' does not take it",
					      lab_contend_only[i], pos.v[0]);
			goto out;
		}
	if (strcmp(pos.v[0], "run") && strcmp(pos.v[0], "contend")) {
		/* how guests measure is lab run's: image and report take none of it */
		static const struct vmb_opt measure[] = { RUN_MEASURE_OPTS, { .name = "quick" } };
		const char *given = NULL;
		char name[96];

		for (size_t i = 0; !given && i < ARRAY_SIZE(measure); i++) {
			const struct opt_value *v = optset_get(&own, measure[i].name);

			/* a study's experiments measure as its file says; --quick shortens them all */
			if (v && v->set && (strcmp(measure[i].name, "quick") || strcmp(pos.v[0], "study")))
				given = snprintf(name, sizeof(name), "--%s", measure[i].name) > 0 ? name : NULL;
		}
		for (size_t i = 0; !given && i < vmb_nsuites; i++)
			for (size_t k = 0; !given && k < suite_sets[i].n; k++)
				if (suite_sets[i].vals[k].set)
					given = snprintf(name, sizeof(name), "--%s%s", suite_sets[i].prefix,
							 suite_sets[i].opts[k].name) > 0 ? name : NULL;
		if (given) {
			ret = cmd_usage_error(self, "%s is an option of 'lab run' (how the guests measure); 'lab %s' "
					      "takes none", given, pos.v[0]);
			goto out;
		}
		/* and how lab run boots and replicates: its alone ("run:" in their help) */
		for (size_t i = 0; i < ARRAY_SIZE(lab_run_only); i++) {
			const struct opt_value *v = optset_get(&own, lab_run_only[i]);

			if (v && v->set && (strcmp(lab_run_only[i], "baseline") || strcmp(pos.v[0], "report"))) {
				ret = cmd_usage_error(self, "--%s is an option of 'lab run'; 'lab %s' does not take it",
						      lab_run_only[i], pos.v[0]);
				goto out;
			}
		}
	}
	if (!strcmp(pos.v[0], "study")) {
		ret = lab_study(self, &own, pos.n == 2 ? pos.v[1] : NULL);
		goto out;
	}
	if (!strcmp(pos.v[0], "report")) {
		/* no selector: the last session */
		ret = lab_report(self, &own, pos.n == 2 ? pos.v[1] : NULL);
		goto out;
	}
	if (pos.n > 1) {
		ret = cmd_usage_error(self, "unexpected argument '%s'", pos.v[1]);
		goto out;
	}
	if (optset_str(&own, "distro-packages") && !optset_str(&own, "distro")) {
		ret = cmd_usage_error(self, "--distro-packages adds packages to --distro's image: give --distro %s too",
				      LAB_DISTRO_CHOICES);
		goto out;
	}
	if (optset_str(&own, "distro") && strcmp(pos.v[0], "image")) {
		ret = cmd_usage_error(self, "--distro is an option of 'lab image' (it builds a distribution's disk "
				      "image); 'lab %s' does not take it yet", pos.v[0]);
		goto out;
	}
	if (optset_str(&own, "distro") && (optset_str(&own, "kernel") || optset_str(&own, "busybox"))) {
		ret = cmd_usage_error(self, "--kernel and --busybox make the busybox image; --distro's image has the "
				      "distribution's own kernel and userland");
		goto out;
	}
	if (!strcmp(pos.v[0], "image") && optset_str(&own, "output")) {
		ret = cmd_usage_error(self, "lab image writes no report: -o is for 'lab run' and 'lab report'; "
				      "--image-dir DIR says where the image goes");
		goto out;
	}
	if (quick_and_cache(&own, cache, sizeof(cache)) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!strcmp(pos.v[0], "run")) {
		ret = lab_run(self, &own, suite_sets, cache, optset_str(&own, "image-dir"), false, NULL, 0);
		goto out;
	}
	if (!strcmp(pos.v[0], "contend")) {
		ret = lab_contend_cmd(self, &own, suite_sets, cache, false, NULL, 0);
		goto out;
	}
	if (optset_str(&own, "image-dir"))
		snprintf(out, sizeof(out), "%s", optset_str(&own, "image-dir"));
	else if (optset_str(&own, "distro"))
		snprintf(out, sizeof(out), "%s/image-%s-%s", cache, optset_str(&own, "distro"), optset_str(&own, "arch"));
	else
		snprintf(out, sizeof(out), "%s/image-%s", cache, optset_str(&own, "arch"));
	if (optset_str(&own, "distro")) {
		ret = distro_image_for(&own, optset_str(&own, "distro"), optset_str(&own, "distro-packages"),
				       optset_str(&own, "arch"), cache, out, &rebuilt,
				       err, sizeof(err));
		if (ret < 0) {
			log_error("lab image --distro %s: %s", optset_str(&own, "distro"), err);
			ret = ret == -ENOEXEC || ret == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
			goto out;
		}
		printf("%s %s (root.qcow2, vmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out);
		ret = EXIT_OK;
		goto out;
	}
	ret = image_for(&own, optset_str(&own, "arch"), cache, out, &rebuilt, err, sizeof(err));
	if (ret < 0) {
		log_error("lab image: %s", err);
		/* a program given for the wrong architecture is bad input, like a bad file */
		ret = ret == -ENOEXEC ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	{
		/* vmlinux: the kernel proper QEMU starts, where the image has it (src/lab/kernel.h) */
		char vmlinux[sizeof(out) + 16];

		snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", out);
		printf("%s %s (%svmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out,
		       access(vmlinux, F_OK) == 0 ? "vmlinux, " : "");
	}
	ret = EXIT_OK;
out:
	cmd_release(&own, suite_sets, &pos);
	free(suite_sets);
	return ret;
}
