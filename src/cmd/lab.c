/* vmbench lab: the QEMU lab: image, run, report. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/noise.h"
#include "../core/sys.h"
#include "../core/stop.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../lab/qemu.h"
#include "../probe/probe.h"
#include "../report/compare.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"

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
	{ .name = "busybox", .type = OPT_STRING, .metavar = "PATH",
	  .help = "a static busybox for the guest (default /bin/busybox, or Debian's busybox-static for another "
		  "architecture, fetched into the cache)" },
	{ .name = "agent", .type = OPT_KV, .metavar = "ARCH=PATH",
	  .help = "the vmbench to put in ARCH guests (default this binary on its own architecture, vmbench-ARCH "
		  "beside it for another, as 'make cross' makes build/vmbench-aarch64)" },
	{ .name = "matrix", .type = OPT_STRING, .metavar = "SPEC",
	  .help = "run: the configurations, e.g. \"accel=tcg disk=ide,virtio-blk smp=1,2\", every combination of "
		  "the values. " LAB_MATRIX_HELP },
	{ .name = "suites", .type = OPT_STRING, .def = "cpu,disk,boot", .metavar = "LIST",
	  .help = "run: what to measure in each guest (suites or SUITE.TEST, e.g. cpu, disk.randread, boot)" },
	{ .name = "quick", .type = OPT_BOOL, .help = "run: short runs of the suites, in the guests and on the host" },
	{ .name = "boots", .type = OPT_INT, .min = 1, .max = 100, .def = "3", .quick = "2", .metavar = "N",
	  .help = "run: cold boots timed per configuration (the first also runs the suites)" },
	{ .name = "rounds", .type = OPT_INT, .min = 1, .max = 100, .def = "1", .metavar = "N",
	  .help = "run: boot every configuration N times, in an order shuffled per round (the seed is recorded), so "
		  "drift during a long matrix hits every configuration alike; each boot is a run for compare" },
	{ .name = "baseline", .type = OPT_STRING, .def = "host", .choices = "host|none", .metavar = "WHAT",
	  .help = "run: also measure the host, and compare every configuration with it" },
	{ .name = "disk-size", .type = OPT_SIZE, .min = 16 << 20, .max = 1ull << 40, .def = "1g", .quick = "128m",
	  .metavar = "SIZE", .help = "run: the scratch disk behind the configuration's controller" },
	{ .name = "disk-format", .type = OPT_STRING, .def = "raw", .choices = LAB_BACKEND_CHOICES(LAB_DISK), .metavar = "FMT",
	  .help = "run: the scratch disk's image format (qcow2 needs qemu-img, Debian's qemu-utils)" },
	{ .name = "disk-cache", .type = OPT_STRING, .def = "none", .choices = "none|writeback|writethrough|directsync|unsafe",
	  .metavar = "MODE", .help = "run: QEMU's cache mode for the scratch disk" },
	{ .name = "retries", .type = OPT_INT, .min = 0, .max = 10, .def = "1", .metavar = "N",
	  .help = "run: boot a configuration that failed again, up to N more times in the same round; when no try "
		  "succeeds, the round is marked failed for it. Each failed boot's console and QEMU's output are "
		  "kept in $XDG_STATE_HOME/vmbench/lab-failures/, named in the message and the report" },
	{ .name = "hello-timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "180", .metavar = "SECONDS",
	  .help = "run: how long a guest may take to boot and say HELLO" },
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE", .help = "run: tag every stored result" },
	{ .name = "output", .short_name = 'o', .type = OPT_STRING, .metavar = "FILE",
	  .help = "run, report: the HTML report to write (a new file; - for stdout; default a new "
		  "vmbench-lab-DATE-TIME.html, named when written)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH",
	  .help = "run, report: the result store (default $VMBENCH_DB, else $XDG_DATA_HOME/vmbench/results.db)" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_lab(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_lab_desc = {
	.name = "lab",
	.fn = cmd_lab,
	.args = "image | run --matrix SPEC | report SELECTOR",
	.summary = "the QEMU lab: guest image, matrix runs under QEMU, comparison with the host",
	.description = "The image is Debian's kernel (fetched once with apt-get download into the cache), an "
		       "initramfs with a static busybox, the kernel modules of every supported disk controller and "
		       "NIC with their dependencies, this vmbench binary with its shared libraries, and an init "
		       "that loads the drivers and starts 'vmbench agent' on /dev/hvc0. It is rebuilt only when "
		       "an input changed. 'lab run' boots every configuration of --matrix, times the boot phases, "
		       "runs --suites in the guest on a scratch disk behind the configuration's controller, "
		       "measures the host, stores each result with the matrix keys as labels, prints the "
		       "comparison with the host and writes the HTML report. 'lab report SELECTOR' redraws it "
		       "from the store. Guests are x86_64 or aarch64 (--arch, or the matrix key arch); a guest "
		       "of another architecture than the host's is emulated (TCG).",
	.opts = lab_opts,
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

/* The host baseline: this binary's `run` of the same suites and tests as in
 * the guests, but those the lab measures from outside a guest (boot). NULL with err on failure,
 * NULL with err empty when only boot was asked. */
static json_t *host_run(const char *suites, bool quick, const char *disk_size, char *err, size_t errlen)
{
	static const char *const tail[] = { "--no-store", "-q", "--json", "-" };
	struct strv argv = { 0 };
	char *items = xstrdup(suites), *save = NULL, *out = NULL;
	size_t nitems = 0;
	json_t *doc = NULL;
	int r;

	err[0] = '\0';
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
		snprintf(opt, sizeof(opt), "--%s.%s", s->name, s->scratch->size_opt);
		r = strv_push(&argv, opt);
		if (r == 0)
			r = strv_push(&argv, disk_size);
	}
	if (r == 0 && quick)
		r = strv_push(&argv, "--quick");
	for (size_t i = 0; r == 0 && i < sizeof(tail) / sizeof(tail[0]); i++)
		r = strv_push(&argv, tail[i]);
	if (r < 0) {
		errf(err, errlen, r, "out of memory");
		goto out;
	}
	if (!nitems)
		goto out;
	/* exit 1 means a measurement failed: the document is still there */
	(void)run_capture("/proc/self/exe", argv.v, NULL, &out);
	if (!out) {
		errf(err, errlen, -EIO, "the host run printed nothing");
		goto out;
	}
	if (doc_load_string(out, "the host run", &doc, err, errlen) < 0)
		doc = NULL;
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
	bool quick;
	struct db *db;
	struct cmp_table t;
	size_t failed;
	bool host;       /* the host baseline is the comparison's first operand */
	bool kvm_failed; /* accel=auto: decided once per run */
	struct image_slot {
		char dir[4200];
		int state; /* 0 not yet, 1 ready, -1 failed */
	} images[2];     /* per architecture, built when a configuration first needs one */
	char disk_size[32];
	json_t *group;   /* --rounds: this round's run_group, or NULL */
	json_t *busy;    /* config name -> [busy rounds, rounds] of the host noise sensors */
	unsigned round;  /* 1..--rounds */
	char accel_asked[32];         /* the configuration's accel before auto was resolved */
	struct lab_evidence evidence; /* where the failed boots' consoles go */
	json_t *failures;             /* their records, for the comparison's reader (t.failures) */
	bool kvm_probed, kvm_ok;      /* accel=kvm: /dev/kvm as `info` probes it */
	char kvm_why[256];
};

/* Label, store and add to the comparison one operand's document (taken). */
static void lab_keep(struct lab *l, const char *name, json_t *doc, const struct lab_config *c, const char *note)
{
	json_t *labels = json_object_get(doc, "labels");
	bool marker = json_object_get(doc, "lab_failure") != NULL;
	int64_t id;
	int r = 0;

	if (!json_is_object(labels)) {
		labels = json_object();
		r = labels ? json_object_set_new(doc, "labels", labels) : -ENOMEM;
	}
	for (int k = 0; c && r == 0 && k < LAB_NKEYS; k++)
		r = json_object_set_new(labels, lab_key_name((enum lab_key)k), json_string(c->v[k]));
	if (r == 0)
		r = json_object_set_new(labels, "config", json_string(name));
	if (r == 0)
		r = cmd_set_labels(doc, &optset_get(l->own, "label")->kv);
	if (r == 0 && note)
		r = json_object_set_new(doc, "lab_note", json_string(note));
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
	doc = host_run(l->suites, l->quick, l->disk_size, err, sizeof(err));
	if (!doc && *err) {
		log_error("the host baseline failed: %s", err);
		return -EIO;
	}
	if (doc) {
		size_t before = l->t.nops;

		lab_keep(l, "host", doc, NULL, NULL);
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

/* The image for this configuration's architecture, built once per run. */
static const char *lab_image(struct lab *l, const char *name, const char *arch)
{
	struct image_slot *img = &l->images[!strcmp(arch, "aarch64")];
	char err[2048];
	int rebuilt = 0;

	if (!img->state) {
		if (l->image_dir)
			snprintf(img->dir, sizeof(img->dir), "%s/%s", l->image_dir, arch);
		else
			snprintf(img->dir, sizeof(img->dir), "%s/image-%s", l->cache, arch);
		img->state = image_for(l->own, arch, l->cache, img->dir, &rebuilt, err, sizeof(err)) < 0 ? -1 : 1;
		if (img->state < 0)
			log_error("%s: the %s image: %s", name, arch, err);
		else
			log_info("%s image %s %s", arch, img->dir, rebuilt ? "built" : "up to date");
	}
	return img->state > 0 ? img->dir : NULL;
}

/* accel=auto: TCG for another architecture; KVM when /dev/kvm opens and no
 * guest failed under it yet. *note says why TCG was used. */
static void resolve_accel(const struct lab *l, struct lab_config *c, bool native, const char **note)
{
	int fd;

	*note = NULL;
	if (strcmp(c->v[LAB_ACCEL], "auto"))
		return;
	if (!native) {
		snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "tcg");
		*note = "accel=auto: a guest of another architecture is emulated, TCG used";
		return;
	}
	fd = l->kvm_failed ? -1 : open("/dev/kvm", O_RDWR | O_CLOEXEC);
	snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "%s", fd >= 0 ? "kvm" : "tcg");
	if (fd >= 0)
		close(fd);
	else
		*note = l->kvm_failed ? "accel=auto: KVM could not boot the guest here, TCG used"
				      : "accel=auto: /dev/kvm cannot be opened, TCG used";
}

static int boot_config(const struct lab *l, const struct lab_config *c, const char *image_dir, int hello_timeout_ms,
		       json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	return lab_run_config(c, &(struct lab_run_opts){
		.image_dir = image_dir, .suites = l->suites, .boots = (unsigned)optset_int(l->own, "boots"),
		.quick = l->quick, .disk_size = l->disk_size, .disk_format = optset_str(l->own, "disk-format"),
		.disk_cache = optset_str(l->own, "disk-cache"), .hello_timeout_ms = hello_timeout_ms,
	}, doc, f, err, errlen);
}

/* One try of a configuration, with accel=auto's fall back to TCG when KVM
 * could not boot the guest (that is no failed try: TCG is then tried). */
static int boot_try(struct lab *l, struct lab_config *c, const char *image, const char *name, const char **note,
		    json_t **doc, struct lab_failure *f, char *err, size_t errlen)
{
	bool autoaccel = !strcmp(l->accel_asked, "auto");
	int timeout_ms = (int)(optset_double(l->own, "hello-timeout") * 1000), r;

	/* a KVM guest that is not talking within 30 s will not: do not wait longer for auto */
	r = boot_config(l, c, image, autoaccel && !strcmp(c->v[LAB_ACCEL], "kvm") && timeout_ms > 30000 ? 30000 : timeout_ms,
			doc, f, err, errlen);
	if (r < 0 && autoaccel && !strcmp(c->v[LAB_ACCEL], "kvm") && !vmb_stop_requested()) {
		/* KVM present but not able to run this guest (a nested host, say): TCG */
		log_info("%s: KVM did not boot the guest (%.200s); using TCG from now on", name, err);
		l->kvm_failed = true;
		snprintf(c->v[LAB_ACCEL], sizeof(c->v[0]), "tcg");
		*note = "accel=auto: KVM could not boot the guest here, TCG used";
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

		if (t == 1)
			log_info("%s: booting (%s)", name, c->v[LAB_ACCEL]);
		else
			log_info("%s: booting again (%s), try %u of %u", name, c->v[LAB_ACCEL], t, tries);
		noise_begin(ns, NULL, 0);
		*started = wall_time_s();
		r = boot_try(l, c, image, name, note, doc, &f, err, errlen);
		if (r < 0 && r != -EOPNOTSUPP && !vmb_stop_requested())
			lab_failed_try(l, name, t, tries, &f, err);
		lab_failure_release(&f);
		if (r == 0 || r == -EOPNOTSUPP)
			break;
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
	image = lab_image(l, name, c.v[LAB_ARCH]);
	if (!image) {
		l->failed++;
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
	lab_keep(l, name, doc, &c, note);
}

/* The comparison on stdout (unless the report goes there) and the report. */
static int lab_show(const struct cmp_table *t, const char *out)
{
	struct cmp_filter flt = { .all = false };

	if (!out || strcmp(out, "-"))
		cmp_print(stdout, t, &flt, CMP_TEXT, false);
	return cmd_write_html(t, "vmbench lab", out, "vmbench-lab") < 0 ? EXIT_FAILED : EXIT_OK;
}

/* --suites: every item a suite or SUITE.TEST of the table, before any boot. */
static int check_suites(const struct vmb_cmd *self, const char *items)
{
	char what[128], valid[256];

	for (const char *p = items; *p; p += strcspn(p, ","), p += *p == ',') {
		const struct vmb_suite *s;
		size_t off = 0;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		if (!*what)
			return cmd_usage_error(self, "--suites '%s' has an empty item; e.g. --suites cpu,disk,boot", items);
		snprintf(valid, sizeof(valid), "%.*s", (int)strcspn(what, "."), what);
		s = suites_find(valid);
		if (s && (!strchr(what, '.') || suites_test_index(s, strchr(what, '.') + 1) >= 0))
			continue;
		valid[0] = '\0';
		for (size_t i = 0; i < vmb_nsuites && off < sizeof(valid); i++)
			str_appendf(valid, sizeof(valid), &off, "%s%s", i ? ", " : "", vmb_suites[i]->name);
		return cmd_usage_error(self, "--suites: '%s' is no suite or SUITE.TEST ('vmbench list' has them); suites: %s",
				       what, valid);
	}
	if (!*items)
		return cmd_usage_error(self, "--suites is empty; e.g. --suites cpu,disk,boot");
	return CMD_CONTINUE;
}

/* Everything lab run checks and opens before the first boot: the matrix,
 * --kernel, --suites, -o, the store, the signal handlers. CMD_CONTINUE, or
 * an exit code after a message. */
static int lab_prepare(const struct vmb_cmd *self, struct optset *own, struct lab *l, struct lab_matrix *m,
		       const char *out)
{
	char err[2048], dbpath[4096];
	int ret, r;

	if (!optset_str(own, "matrix"))
		return cmd_usage_error(self, "lab run needs --matrix, e.g. --matrix \"accel=tcg disk=ide,virtio-blk\"");
	if (lab_matrix_parse(optset_str(own, "matrix"), m, err, sizeof(err)) < 0)
		return cmd_usage_error(self, "%s", err);
	for (size_t i = 1; optset_str(own, "kernel") && i < m->n; i++)
		if (strcmp(m->configs[i].v[LAB_ARCH], m->configs[0].v[LAB_ARCH]))
			return cmd_usage_error(self, "--kernel names one kernel, the matrix has two architectures");
	ret = check_suites(self, l->suites);
	if (ret != CMD_CONTINUE)
		return ret;
	/* a report that cannot be written must not cost a long run */
	ret = cmd_check_output(self, out);
	if (ret != CMD_CONTINUE)
		return ret;
	if (db_default_path(optset_str(own, "db"), dbpath, sizeof(dbpath)) < 0)
		return cmd_usage_error(self, "no place for the result store: set --db, VMBENCH_DB or HOME");
	r = db_open(dbpath, true, &l->db);
	if (r < 0)
		return db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
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
	l->group = json_pack("{s:s, s:I, s:I, s:I, s:o}", "id", group_id, "round", (json_int_t)k, "rounds",
			     (json_int_t)rounds, "seed", (json_int_t)seed, "order", names);
	if (!l->group) {
		log_error("out of memory recording round %u", k);
		return -ENOMEM;
	}
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

/* Every round: the host (its runs are the baseline's replication), then
 * every configuration. EXIT_OK, or EXIT_FAILED after a message. */
static int lab_rounds(struct lab *l, const struct lab_matrix *m, size_t *order)
{
	unsigned rounds = (unsigned)optset_int(l->own, "rounds");
	uint64_t seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0xffffffffu, rng = seed;

	for (size_t i = 0; i < m->n; i++)
		order[i] = i;
	for (unsigned k = 1; k <= rounds && !vmb_stop_requested(); k++) {
		l->round = k;
		if (rounds > 1 && lab_shuffle(l, m, order, k, rounds, seed, &rng) < 0)
			return EXIT_FAILED;
		if (!strcmp(optset_str(l->own, "baseline"), "host") && lab_baseline(l) < 0)
			return EXIT_FAILED;
		for (size_t i = 0; i < m->n && !vmb_stop_requested(); i++)
			lab_config(l, m, order[i]);
	}
	return EXIT_OK;
}

static int lab_run(const struct vmb_cmd *self, struct optset *own, const char *cache, const char *image_dir)
{
	struct lab l = { .own = own, .cache = cache, .image_dir = image_dir, .suites = optset_str(own, "suites"),
			 .quick = optset_bool(own, "quick") };
	struct lab_matrix m = { 0 };
	const char *out = optset_str(own, "output");
	size_t *order = NULL;
	int ret;

	cmp_table_init(&l.t, suites_find);
	lab_evidence_init(&l.evidence);
	l.failures = json_array();
	l.t.failures = l.failures;
	snprintf(l.disk_size, sizeof(l.disk_size), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	ret = lab_prepare(self, own, &l, &m, out);
	if (ret != CMD_CONTINUE)
		goto out;
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
	if (l.t.nops && cmp_build(&l.t) == 0)
		ret = lab_show(&l.t, out);
	else if (l.t.nops)
		ret = EXIT_FAILED;
	else
		cmp_print_failures(stdout, &l.t); /* nothing to compare, but what failed */
	if (l.failed)
		ret = EXIT_FAILED;
out:
	lab_kill_all();
	free(order);
	json_decref(l.group);
	json_decref(l.busy);
	json_decref(l.failures);
	cmp_table_release(&l.t);
	lab_matrix_release(&m);
	db_close(l.db);
	return ret;
}

struct grouping {
	struct db *db;
	json_t *groups; /* config label -> array of documents, in first-seen order */
	json_t *failures; /* the records of the stored failure markers */
	int r;
};

static int group_row(const struct db_row *row, void *arg)
{
	struct grouping *g = arg;
	char id[32];
	const char *cfg;
	json_t *doc, *list;

	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	g->r = db_get(g->db, id, &doc);
	if (g->r < 0)
		return g->r;
	cfg = json_string_value(json_object_get(json_object_get(doc, "labels"), "config"));
	if (!cfg) {
		json_decref(doc); /* not a lab run */
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

/* lab report SELECTOR: the lab's comparison and HTML report again, from the store. */
static int lab_report(const struct vmb_cmd *self, struct optset *own, const char *selector)
{
	struct grouping g = { 0 };
	struct strv filter = { 0 };
	struct cmp_table t;
	char path[4096];
	const char *k, *out = optset_str(own, "output");
	json_t *v;
	int ret, r;

	cmp_table_init(&t, suites_find);
	g.groups = json_object();
	g.failures = json_array();
	t.failures = g.failures;
	if (!g.groups || !g.failures) {
		ret = EXIT_FAILED;
		goto out;
	}
	r = db_parse_selector(selector, &filter);
	if (r < 0) {
		ret = cmd_selector_error(self, selector, r);
		goto out;
	}
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
	if (db_list(g.db, &filter, group_row, &g) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(g.groups) && !json_array_size(g.failures)) {
		ret = cmd_usage_error(self, "lab report: no lab run has the labels %s", selector);
		goto out;
	}
	if (!json_object_size(g.groups)) {
		/* every boot of it failed: nothing to compare, but what failed */
		cmp_print_failures(stdout, &t);
		ret = EXIT_FAILED;
		goto out;
	}
	/* the host first: it is the baseline */
	r = 0;
	if (json_object_get(g.groups, "host"))
		r = cmp_add_operand(&t, "host", json_incref(json_object_get(g.groups, "host")));
	json_object_foreach(g.groups, k, v)
		if (r == 0 && strcmp(k, "host"))
			r = cmp_add_operand(&t, k, json_incref(v));
	if (r < 0 || cmp_build(&t) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	ret = lab_show(&t, out);
out:
	cmp_table_release(&t);
	json_decref(g.groups);
	json_decref(g.failures);
	db_close(g.db);
	strv_clear(&filter);
	return ret;
}

/* --out named two things (the image directory, and where a report went); it
 * is refused with both of its successors, before the parser suggests one. */
static int refuse_out(const struct vmb_cmd *self, int argc, char **argv)
{
	for (int a = 0; a < argc && strcmp(argv[a], "--"); a++)
		if (!strcmp(argv[a], "--out") || str_has_prefix(argv[a], "--out="))
			return cmd_usage_error(self, "--out is no lab option: --image-dir DIR says where the guest images "
						     "go, -o FILE where the HTML report goes");
	return CMD_CONTINUE;
}

static int cmd_lab(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own = { 0 };
	struct strv pos = { 0 };
	char cache[4096], out[4200], err[1024];
	int ret, rebuilt = 0;

	ret = refuse_out(self, argc, argv);
	if (ret != CMD_CONTINUE)
		return ret;
	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	if (strcmp(pos.v[0], "image") && strcmp(pos.v[0], "run") && strcmp(pos.v[0], "report")) {
		ret = cmd_usage_error(self, "no lab command '%s'; 'image' builds the guest image, 'run' runs a matrix, "
				      "'report SELECTOR' redraws a run's comparison from the store", pos.v[0]);
		goto out;
	}
	if (!strcmp(pos.v[0], "report")) {
		ret = pos.n == 2 ? lab_report(self, &own, pos.v[1])
				 : cmd_usage_error(self, "lab report needs a label selector, e.g. lab report t=lab");
		goto out;
	}
	if (pos.n > 1) {
		ret = cmd_usage_error(self, "unexpected argument '%s'", pos.v[1]);
		goto out;
	}
	if (!strcmp(pos.v[0], "image") && optset_str(&own, "output")) {
		ret = cmd_usage_error(self, "lab image writes no report: -o is for 'lab run' and 'lab report'; "
				      "--image-dir DIR says where the image goes");
		goto out;
	}
	if (optset_bool(&own, "quick") && optset_apply_quick(&own) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (optset_str(&own, "cache"))
		snprintf(cache, sizeof(cache), "%s", optset_str(&own, "cache"));
	else
		cache_home(cache, sizeof(cache));
	if (!strcmp(pos.v[0], "run")) {
		ret = lab_run(self, &own, cache, optset_str(&own, "image-dir"));
		goto out;
	}
	if (optset_str(&own, "image-dir"))
		snprintf(out, sizeof(out), "%s", optset_str(&own, "image-dir"));
	else
		snprintf(out, sizeof(out), "%s/image-%s", cache, optset_str(&own, "arch"));
	ret = image_for(&own, optset_str(&own, "arch"), cache, out, &rebuilt, err, sizeof(err));
	if (ret < 0) {
		log_error("lab image: %s", err);
		/* a program given for the wrong architecture is bad input, like a bad file */
		ret = ret == -ENOEXEC ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	printf("%s %s (vmlinuz, initrd.img, manifest.json)\n", rebuilt ? "built" : "up to date:", out);
	ret = EXIT_OK;
out:
	cmd_release(&own, NULL, &pos);
	return ret;
}
