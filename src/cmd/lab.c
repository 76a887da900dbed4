/* vmbench lab: the QEMU lab: image, run, report. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/stop.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../report/compare.h"
#include "../report/html.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../core/banned.h"

const struct vmb_opt lab_opts[] = {
	{ .name = "arch", .type = OPT_STRING, .def = "x86_64", .choices = "x86_64|aarch64", .metavar = "ARCH",
	  .help = "the guest's architecture" },
	{ .name = "out", .type = OPT_STRING, .metavar = "DIR",
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
	  .help = "run: the configurations, e.g. \"accel=tcg disk=ide,virtio-blk smp=1,2\" (keys accel arch disk nic smp mem pin)" },
	{ .name = "suites", .type = OPT_STRING, .def = "cpu,disk,boot", .metavar = "LIST",
	  .help = "run: what to measure in each guest (cpu, disk, boot)" },
	{ .name = "quick", .type = OPT_BOOL, .help = "run: short runs of the suites, in the guests and on the host" },
	{ .name = "boots", .type = OPT_INT, .min = 1, .max = 100, .def = "3", .quick = "2", .metavar = "N",
	  .help = "run: cold boots timed per configuration (the first also runs the suites)" },
	{ .name = "baseline", .type = OPT_STRING, .def = "host", .choices = "host|none", .metavar = "WHAT",
	  .help = "run: also measure the host, and compare every configuration with it" },
	{ .name = "disk-size", .type = OPT_SIZE, .min = 16 << 20, .max = 1ull << 40, .def = "1g", .quick = "128m",
	  .metavar = "SIZE", .help = "run: the scratch disk behind the configuration's controller" },
	{ .name = "disk-format", .type = OPT_STRING, .def = "raw", .choices = "raw|qcow2", .metavar = "FMT",
	  .help = "run: the scratch disk's image format (qcow2 needs qemu-img, Debian's qemu-utils)" },
	{ .name = "disk-cache", .type = OPT_STRING, .def = "none", .choices = "none|writeback|writethrough|directsync|unsafe",
	  .metavar = "MODE", .help = "run: QEMU's cache mode for the scratch disk" },
	{ .name = "hello-timeout", .type = OPT_DOUBLE, .min = 1, .max = 3600, .def = "180", .metavar = "SECONDS",
	  .help = "run: how long a guest may take to boot and say HELLO" },
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE", .help = "run: tag every stored result" },
	{ .name = "report", .type = OPT_STRING, .metavar = "FILE",
	  .help = "run: the HTML report to write (a new file; default vmbench-lab-DATE.html)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "run: the result store" },
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

static void on_signal(int sig)
{
	if (vmb_stop_requested()) {
		lab_kill_all();
		(void)signal(sig, SIG_DFL);
		(void)raise(sig);
		return;
	}
	vmb_request_stop();
}

/* The host baseline: this binary's `run` of the same suites. */
static json_t *host_run(const char *suites, bool quick, const char *disk_size, char *err, size_t errlen)
{
	char *argv[16], size[32];
	int argc = 0;
	char *out = NULL;
	json_t *doc;

	char items[256], *save = NULL;

	argv[argc++] = "vmbench";
	argv[argc++] = "run";
	/* the same suites and tests as in the guests, boot aside */
	snprintf(items, sizeof(items), "%s", suites);
	for (char *it = strtok_r(items, ",", &save); it && argc < 6; it = strtok_r(NULL, ",", &save))
		if (strcmp(it, "boot"))
			argv[argc++] = it;
	if (argc == 2)
		return NULL;
	/* a guest tests the whole scratch disk and records its size: the host
	 * tests a file of that size, so that the two pair in compare */
	snprintf(size, sizeof(size), "%s", disk_size);
	if (strstr(suites, "disk")) {
		argv[argc++] = "--disk.size";
		argv[argc++] = size;
	}
	if (quick)
		argv[argc++] = "--quick";
	argv[argc++] = "--no-store";
	argv[argc++] = "-q";
	argv[argc++] = "--json";
	argv[argc++] = "-";
	argv[argc] = NULL;
	/* exit 1 means a measurement failed: the document is still there */
	(void)run_capture("/proc/self/exe", argv, NULL, &out);
	if (!out) {
		snprintf(err, errlen, "the host run printed nothing");
		return NULL;
	}
	if (doc_load_string(out, "the host run", &doc, err, errlen) < 0)
		doc = NULL;
	free(out);
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

/* --disk-size as text for the run options */
static const char *optset_str_size(const struct optset *own)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)optset_size(own, "disk-size"));
	return buf;
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

static void label(json_t *doc, const char *k, const char *v)
{
	json_object_set_new(json_object_get(doc, "labels"), k, json_string(v));
}

static int lab_run(const struct vmb_cmd *self, struct optset *own, const char *cache, const char *outdir)
{
	/* images per architecture, built when a configuration first needs one */
	struct image_slot {
		char dir[4200];
		int state; /* 0 not yet, 1 ready, -1 failed */
	} images[2] = { 0 }, *img;
	struct lab_matrix m;
	struct cmp_table t;
	struct db *db = NULL;
	const struct strv *labels = &optset_get(own, "label")->kv;
	const char *suites = optset_str(own, "suites"), *accel_note = NULL;
	char err[2048], dbpath[4096], report[4200];
	bool quick = optset_bool(own, "quick");
	int ret = EXIT_OK, rebuilt;
	size_t failed = 0;
	bool kvm_failed = false; /* accel=auto: decided once per run */
	struct sigaction sa = { .sa_handler = on_signal };

	if (!optset_str(own, "matrix"))
		return cmd_usage_error(self, "lab run needs --matrix, e.g. --matrix \"accel=tcg disk=ide,virtio-blk\"");
	if (lab_matrix_parse(optset_str(own, "matrix"), &m, err, sizeof(err)) < 0)
		return cmd_usage_error(self, "%s", err);
	cmp_table_init(&t);
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	if (db_default_path(optset_str(own, "db"), dbpath, sizeof(dbpath)) < 0 || db_open(dbpath, true, &db) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 1; optset_str(own, "kernel") && i < m.n; i++)
		if (strcmp(m.configs[i].v[LAB_ARCH], m.configs[0].v[LAB_ARCH])) {
			ret = cmd_usage_error(self, "--kernel names one kernel, the matrix has two architectures");
			goto out;
		}
	if (!strcmp(optset_str(own, "baseline"), "host") && strcmp(suites, "boot")) {
		json_t *doc;
		int64_t id;

		fprintf(stderr, "vmbench: measuring the host (baseline)\n");
		doc = host_run(suites, quick, optset_str_size(own), err, sizeof(err));
		if (!doc) {
			log_error("the host baseline failed: %s", err);
			ret = EXIT_FAILED;
			goto out;
		}
		label(doc, "config", "host");
		failed += say_failures("host", doc);
		for (size_t i = 0; i < labels->n; i++) {
			char k[128];

			snprintf(k, sizeof(k), "%.*s", (int)(strchr(labels->v[i], '=') - labels->v[i]), labels->v[i]);
			label(doc, k, strchr(labels->v[i], '=') + 1);
		}
		if (db_add(db, doc, &id) == 0)
			fprintf(stderr, "vmbench: host: stored as run %lld\n", (long long)id);
		cmp_add_operand(&t, "host", json_pack("[o]", doc));
	}
	for (size_t i = 0; i < m.n && !vmb_stop_requested(); i++) {
		struct lab_config c = m.configs[i];
		char name[256] = "";
		size_t off = 0;
		json_t *doc = NULL;
		int64_t id;
		bool native;
		int r;

		for (int k = 0; k < LAB_NKEYS; k++)
			if (m.given & (1u << k))
				off += (size_t)snprintf(name + off, sizeof(name) - off, "%s%s=%s", off ? " " : "",
							lab_key_name((enum lab_key)k), c.v[k]);
		if (!*name)
			snprintf(name, sizeof(name), "default");
		if (lab_config_unsupported(&c)) {
			fprintf(stderr, "vmbench: %s: skipped: %s\n", name, lab_config_unsupported(&c));
			continue;
		}
		native = !strcmp(c.v[LAB_ARCH], lab_host_arch());
		if (!strcmp(c.v[LAB_ACCEL], "kvm") && !native) {
			fprintf(stderr, "vmbench: %s: skipped: KVM runs guests of this machine's architecture (%s) only; "
					"accel=tcg emulates %s\n", name, lab_host_arch(), c.v[LAB_ARCH]);
			continue;
		}
		img = &images[!strcmp(c.v[LAB_ARCH], "aarch64")];
		if (!img->state) {
			if (outdir)
				snprintf(img->dir, sizeof(img->dir), "%s/%s", outdir, c.v[LAB_ARCH]);
			else
				snprintf(img->dir, sizeof(img->dir), "%s/image-%s", cache, c.v[LAB_ARCH]);
			img->state = image_for(own, c.v[LAB_ARCH], cache, img->dir, &rebuilt, err, sizeof(err)) < 0 ? -1 : 1;
			if (img->state < 0)
				log_error("%s: the %s image: %s", name, c.v[LAB_ARCH], err);
			else
				fprintf(stderr, "vmbench: %s image %s %s\n", c.v[LAB_ARCH], img->dir,
					rebuilt ? "built" : "up to date");
		}
		if (img->state < 0) {
			failed++;
			continue;
		}
		accel_note = NULL; /* why auto chose TCG, for this configuration */
		if (!strcmp(c.v[LAB_ACCEL], "auto") && !native) {
			snprintf(c.v[LAB_ACCEL], sizeof(c.v[0]), "tcg");
			accel_note = "accel=auto: a guest of another architecture is emulated, TCG used";
		} else if (!strcmp(c.v[LAB_ACCEL], "auto")) {
			/* KVM only when /dev/kvm opens and a guest reached its agent under it */
			int fd = kvm_failed ? -1 : open("/dev/kvm", O_RDWR | O_CLOEXEC);

			snprintf(c.v[LAB_ACCEL], sizeof(c.v[0]), "%s", fd >= 0 ? "kvm" : "tcg");
			if (fd >= 0)
				close(fd);
			else
				accel_note = kvm_failed ? "accel=auto: KVM could not boot the guest here, TCG used"
							: "accel=auto: /dev/kvm cannot be opened, TCG used";
		}
		fprintf(stderr, "vmbench: %s: booting (%s)\n", name, c.v[LAB_ACCEL]);
		r = lab_run_config(&c, &(struct lab_run_opts){
			.image_dir = img->dir, .suites = suites, .boots = (unsigned)optset_int(own, "boots"), .quick = quick,
			.disk_size = optset_str_size(own), .disk_format = optset_str(own, "disk-format"),
			.disk_cache = optset_str(own, "disk-cache"),
			/* a KVM guest that is not talking within 30 s will not: do not wait longer for auto */
			.hello_timeout_ms = (int)(optset_double(own, "hello-timeout") * 1000) >
						    30000 && !strcmp(m.configs[i].v[LAB_ACCEL], "auto") &&
						    !strcmp(c.v[LAB_ACCEL], "kvm")
					    ? 30000 : (int)(optset_double(own, "hello-timeout") * 1000),
		}, &doc, err, sizeof(err));
		if (r < 0 && !strcmp(c.v[LAB_ACCEL], "kvm") && !strcmp(m.configs[i].v[LAB_ACCEL], "auto") &&
		    !vmb_stop_requested()) {
			/* KVM present but not able to run this guest (a nested host, say): TCG */
			log_info("%s: KVM did not boot the guest (%.200s); using TCG from now on", name, err);
			kvm_failed = true;
			snprintf(c.v[LAB_ACCEL], sizeof(c.v[0]), "tcg");
			accel_note = "accel=auto: KVM could not boot the guest here, TCG used";
			r = lab_run_config(&c, &(struct lab_run_opts){
				.image_dir = img->dir, .suites = suites, .boots = (unsigned)optset_int(own, "boots"), .quick = quick,
				.disk_size = optset_str_size(own), .disk_format = optset_str(own, "disk-format"),
			.disk_cache = optset_str(own, "disk-cache"),
				.hello_timeout_ms = (int)(optset_double(own, "hello-timeout") * 1000),
			}, &doc, err, sizeof(err));
		}
		if (r == -EOPNOTSUPP) {
			fprintf(stderr, "vmbench: %s: skipped: %s\n", name, err);
			continue;
		}
		if (r < 0) {
			log_error("%s: %s", name, err);
			failed++;
			continue;
		}
		for (int k = 0; k < LAB_NKEYS; k++)
			label(doc, lab_key_name((enum lab_key)k), c.v[k]);
		label(doc, "config", name);
		for (size_t j = 0; j < labels->n; j++) {
			char k[128];

			snprintf(k, sizeof(k), "%.*s", (int)(strchr(labels->v[j], '=') - labels->v[j]), labels->v[j]);
			label(doc, k, strchr(labels->v[j], '=') + 1);
		}
		if (accel_note)
			json_object_set_new(doc, "lab_note", json_string(accel_note));
		failed += say_failures(name, doc);
		if (db_add(db, doc, &id) == 0)
			fprintf(stderr, "vmbench: %s: stored as run %lld\n", name, (long long)id);
		cmp_add_operand(&t, name, json_pack("[o]", doc));
	}
	if (vmb_stop_requested()) {
		log_error("interrupted");
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	if (!t.nops && !failed) {
		log_error("no configuration of the matrix can run here (each was skipped, see why above)");
		ret = EXIT_FAILED;
		goto out;
	}
	if (t.nops && cmp_build(&t) == 0) {
		struct cmp_filter flt = { .all = false };
		char *html = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&html, &len);

		cmp_print(stdout, &t, &flt, CMP_TEXT, false);
		if (optset_str(own, "report"))
			snprintf(report, sizeof(report), "%s", optset_str(own, "report"));
		else {
			time_t now = time(NULL);
			struct tm tm;

			gmtime_r(&now, &tm);
			strftime(report, sizeof(report), "vmbench-lab-%Y%m%d-%H%M%S.html", &tm);
		}
		if (mem && html_report(mem, &t, "vmbench lab") == 0 && fclose(mem) == 0 &&
		    file_write_new(report, html, len) == 0)
			fprintf(stderr, "vmbench: wrote %s\n", report);
		else
			log_error("could not write the report %s (it must be a new file)", report);
		free(html);
	}
	if (failed)
		ret = EXIT_FAILED;
out:
	lab_kill_all();
	cmp_table_release(&t);
	lab_matrix_release(&m);
	db_close(db);
	return ret;
}

struct grouping {
	struct db *db;
	json_t *groups; /* config label -> array of documents, in first-seen order */
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
	list = json_object_get(g->groups, cfg);
	if (!list) {
		list = json_array();
		json_object_set_new(g->groups, cfg, list);
	}
	json_array_append_new(list, doc);
	return 0;
}

/* lab report SELECTOR: the lab's comparison and HTML report again, from the store. */
static int lab_report(const struct vmb_cmd *self, struct optset *own, const char *selector)
{
	struct grouping g = { .groups = json_object() };
	struct strv filter = { 0 };
	struct cmp_table t;
	struct cmp_filter flt = { 0 };
	char path[4096], report[4200];
	const char *k;
	json_t *v;
	int ret = EXIT_OK;

	cmp_table_init(&t);
	if (db_parse_selector(selector, &filter) < 0) {
		ret = cmd_usage_error(self, "lab report: '%s' is not a label selector (KEY=VALUE[,KEY=VALUE])", selector);
		goto out;
	}
	if (db_default_path(optset_str(own, "db"), path, sizeof(path)) < 0 || db_open(path, false, &g.db) < 0) {
		ret = cmd_usage_error(self, "lab report: no result store at %s", path);
		goto out;
	}
	if (db_list(g.db, &filter, group_row, &g) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (!json_object_size(g.groups)) {
		ret = cmd_usage_error(self, "lab report: no lab run has the labels %s", selector);
		goto out;
	}
	/* the host first: it is the baseline */
	if (json_object_get(g.groups, "host"))
		cmp_add_operand(&t, "host", json_incref(json_object_get(g.groups, "host")));
	json_object_foreach(g.groups, k, v)
		if (strcmp(k, "host"))
			cmp_add_operand(&t, k, json_incref(v));
	if (cmp_build(&t) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	cmp_print(stdout, &t, &flt, CMP_TEXT, false);
	snprintf(report, sizeof(report), "%s", optset_str(own, "report") ? optset_str(own, "report") : "");
	if (*report) {
		char *html = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&html, &len);

		if (mem && html_report(mem, &t, "vmbench lab") == 0 && fclose(mem) == 0 &&
		    file_write_new(report, html, len) == 0) {
			fprintf(stderr, "vmbench: wrote %s\n", report);
		} else {
			log_error("could not write the report %s (it must be a new file)", report);
			ret = EXIT_FAILED;
		}
		free(html);
	}
out:
	cmp_table_release(&t);
	json_decref(g.groups);
	db_close(g.db);
	strv_clear(&filter);
	return ret;
}

static int cmd_lab(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	char cache[4096], out[4200], err[1024];
	int ret, rebuilt = 0;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
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
	if (optset_bool(&own, "quick") && optset_apply_quick(&own) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	if (optset_str(&own, "cache"))
		snprintf(cache, sizeof(cache), "%s", optset_str(&own, "cache"));
	else
		cache_home(cache, sizeof(cache));
	if (!strcmp(pos.v[0], "run")) {
		ret = lab_run(self, &own, cache, optset_str(&own, "out"));
		goto out;
	}
	if (optset_str(&own, "out"))
		snprintf(out, sizeof(out), "%s", optset_str(&own, "out"));
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
