/* vmbench lab: what lab run and lab contend share: the session (its store, its
 * images, the host baseline, the results kept), and their options checked
 * before the first boot. */
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
#include "lab.h"
#include "../core/run_opts.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/noise.h"
#include "../core/sys.h"
#include "../core/stop.h"
#include "../lab/distro.h"
#include "../guest/fs.h"
#include "../lab/workdir.h"
#include "../lab/lablink.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/iso.h"
#include "../lab/hv.h"
#include "../lab/labrun.h"
#include "../lab/matrix.h"
#include "../lab/contend.h"
#include "../lab/proto_host.h"
#include "../lab/qemu.h"
#include "../probe/probe.h"
#include "../report/compare.h"
#include "../report/hostcost.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/contend.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"


void lab_cache_home(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/vmbench", xdg);
	else
		snprintf(buf, len, "%s/.cache/vmbench", home && *home ? home : "/tmp");
}

/* Does the --suites list name suite s, or a test of it? */
bool lab_items_name(const char *items, const struct vmb_suite *s)
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
void lab_host_dir(char *dir, size_t len, const char **note)
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
int lab_host_filesystem(json_t *doc, const char *dir, const char *note)
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
json_t *lab_host_run(const char *suites, const json_t *opts, const char *disk_size, char *err, size_t errlen)
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
	lab_host_dir(dir, sizeof(dir), &note);
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

		if (!s->scratch || !lab_items_name(suites, s))
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
	if (doc && files && lab_host_filesystem(doc, dir, note) < 0) {
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
int lab_guest_vmbench(const struct optset *own, const char *arch, char *buf, size_t len, char *err, size_t errlen)
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
int lab_image_for(const struct optset *own, const char *arch, const char *cache, const char *dir, int *rebuilt,
		     char *err, size_t errlen)
{
	char vmb[4096];
	int r = lab_guest_vmbench(own, arch, vmb, sizeof(vmb), err, errlen);

	if (r < 0)
		return r;
	return lab_image_build(&(struct lab_image_opts){ .arch = arch, .cache = cache, .out = dir,
				       .kernel = optset_str(own, "kernel"), .busybox = optset_str(own, "busybox"),
				       .vmbench = vmb }, rebuilt, err, errlen);
}

/* Build (or find up to date) --distro's disk image for arch in dir, with
 * the packages (comma-separated; NULL: none) added. */
int lab_distro_image_for(const struct optset *own, const char *distro, const char *packages, const char *arch,
			    const char *cache, const char *dir, int *rebuilt, char *err, size_t errlen)
{
	char vmb[4096], *pub = NULL;
	int r = lab_guest_vmbench(own, arch, vmb, sizeof(vmb), err, errlen);

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
size_t lab_say_failures(const char *who, const json_t *doc)
{
	struct strv why = { 0 };
	size_t n = doc_failures(doc, &why);

	for (size_t j = 0; j < why.n; j++)
		log_error("%s: %s", who, why.v[j]);
	strv_clear(&why);
	return n ? 1 : 0;
}


/* A new session id: the UTC time it started and 16 random bits, so that two
 * sessions started in one second are told apart. */
void lab_session_new(char *buf, size_t len)
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
void lab_keep(struct lab *l, const char *name, json_t *doc, const struct lab_config *c, const char *note)
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
	for (int k = 0; c && r == 0 && k < (int)lab_nkeys; k++)
		r = json_object_set_new(labels, lab_key_name((enum lab_key)k), json_string(c->v[k]));
	if (r == 0)
		r = json_object_set_new(labels, LAB_SESSION_LABEL, json_string(l->session));
	if (r == 0 && l->rq->fleet_label && strcmp(name, LAB_HOST)) {
		/* over several hosts, a configuration is one per host: lab report
		 * then reads host x configuration (the host measured here stays
		 * one); a failed boot's marker carries the host's label too */
		char *both = xasprintf("hv_uri=%s %s", l->rq->fleet_label, name);

		r = both ? json_object_set_new(doc, LAB_CONFIG_KEY, json_string(both)) : -ENOMEM;
		free(both);
		if (r == 0)
			r = json_object_set_new(labels, "hv_uri", json_string(l->rq->fleet_label));
	} else if (r == 0)
		r = json_object_set_new(doc, LAB_CONFIG_KEY, json_string(name));
	if (r == 0)
		r = cmd_set_labels(doc, &l->rq->labels);
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
	l->failed += lab_say_failures(name, doc);
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

int lab_baseline(struct lab *l)
{
	char err[2048];
	json_t *doc;

	log_info("measuring the host (baseline)");
	doc = lab_host_run(l->suites, l->run_opts, l->disk_size, err, sizeof(err));
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
void lab_config_name(const struct lab_matrix *m, const struct lab_config *c, char *name, size_t len)
{
	size_t off = 0;

	name[0] = '\0';
	for (int k = 0; k < (int)lab_nkeys && off < len; k++)
		if (m->given & (1u << k))
			str_appendf(name, len, &off, "%s%s=%s", off ? " " : "", lab_key_name((enum lab_key)k), c->v[k]);
	if (!*name)
		snprintf(name, len, "default");
}

void lab_config_ran_name(const struct lab_matrix *m, const struct lab_config *asked, const struct lab_config *ran,
			 char *name, size_t len)
{
	size_t off = 0;

	name[0] = '\0';
	for (int k = 0; k < (int)lab_nkeys && off < len; k++)
		if (m->given & (1u << k)) {
			str_appendf(name, len, &off, "%s%s=%s", off ? " " : "", lab_key_name((enum lab_key)k), asked->v[k]);
			if (strcmp(asked->v[k], ran->v[k]))
				str_appendf(name, len, &off, " (ran %s)", ran->v[k]);
		}
	if (!*name)
		snprintf(name, len, "default");
}

void lab_name_asked(const char *name, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	while (*name && off + 1 < len) {
		size_t n = strcspn(name, "(");

		/* " (ran tcg)": a value's resolution, after the value and a space */
		if (name[n] == '(' && !strncmp(name + n, "(ran ", 5) && n && name[n - 1] == ' ') {
			str_appendf(buf, len, &off, "%.*s", (int)(n - 1), name);
			name += n + strcspn(name + n, ")");
			name += *name == ')';
		} else {
			str_appendf(buf, len, &off, "%s", name);
			break;
		}
	}
}

/* The image for this configuration's architecture and image key, built once per run. */
const char *lab_image(struct lab *l, const char *name, const struct lab_config *c)
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
		img->state = (row->distro ? lab_distro_image_for(l->own, row->distro, row->packages, arch, l->cache, img->dir,
							     &rebuilt, err, sizeof(err))
					  : lab_image_for(l->own, arch, l->cache, img->dir, &rebuilt, err, sizeof(err))) < 0 ? -1 : 1;
		if (img->state < 0)
			log_error("%s: the %s %s image: %s", name, arch, row->name, err);
		else
			log_info("%s %s image %s %s", arch, row->name, img->dir, rebuilt ? "built" : "up to date");
	}
	/* a boot row's file (boot=cdrom's ISO), made from the image once */
	if (img->state > 0 && c->boot && c->boot->file && !img->iso) {
		struct lab_iso iso;
		/* under the image directory's lock, as lab image --format makes it */
		int fd = lab_iso_lock(img->dir, err, sizeof(err));

		img->iso = fd < 0 || lab_iso_build(img->dir, arch, &iso, err, sizeof(err)) < 0 ? -1 : 1;
		if (fd >= 0)
			close(fd);
		if (img->iso < 0)
			log_error("%s: boot=%s: %s", name, c->boot->name, err);
		else
			log_info("%s %s", iso.path, iso.built ? "built" : "up to date");
	}
	if (img->state > 0 && c->boot && c->boot->file && img->iso < 0)
		return NULL;
	return img->state > 0 ? img->dir : NULL;
}


/* --suites: the items as `run` reads its words (suites_parse_items: commas
 * or spaces), checked before any boot and kept as "a,b,c", the form the
 * rest of the lab splits. */
int lab_suites_normalize(const struct vmb_cmd *self, struct lab_request *rq)
{
	struct strv items = { 0 };
	char why[512], *joined = NULL, *word = (char *)rq->suites;
	size_t len = 1, off = 0;
	int r;

	if (!rq->suites)
		return CMD_CONTINUE;
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
	if (r < 0)
		return EXIT_FAILED;
	free(rq->items);
	rq->items = joined;
	return CMD_CONTINUE;
}

/* What the host-measured suites the items ask need of the matrix, before
 * anything boots: each asked row's check. */
int lab_check_host_rows(const struct vmb_cmd *self, const struct lab *l, const struct lab_matrix *m)
{
	char why[512];

	for (size_t i = 0; i < lab_host_nrows; i++)
		if (lab_host_rows[i].check && lab_host_asked(lab_host_rows[i].suite, l->suites, NULL) &&
		    lab_host_rows[i].check(m, l->run_opts, why, sizeof(why)) < 0)
			return cmd_usage_error(self, "%s", why);
	return CMD_CONTINUE;
}

/* --label: none of the keys the lab sets itself (a matrix key, the session). */
int lab_check_labels(const struct vmb_cmd *self, const struct strv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)strcspn(kv->v[i], "="), kv->v[i]);
		if (lab_key_find(key) >= 0 || !strcmp(key, LAB_SESSION_LABEL) || !strcmp(key, "config") || !strcmp(key, "net_backend") ||
		    !strcmp(key, "hv_backend") || !strcmp(key, "hv_host") || !strcmp(key, "hv_uri"))
			return cmd_usage_error(self, "--label %s: the lab sets the label %s itself (%s); choose another key",
					       kv->v[i], key, lab_key_find(key) >= 0 ? "a matrix key" : "the session or configuration");
	}
	return CMD_CONTINUE;
}

/* An option's parsed value as RUN's options object has it: true for a
 * flag, a number for counts and seconds, bytes for a size, the text for
 * text and lists (a list's "all" is the guest's CPUs there, not ours). */
json_t *lab_opt_json(const struct vmb_opt *o, const struct opt_value *v)
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
int lab_check_measure(const struct vmb_cmd *self, const struct lab_request *rq, const struct lab_matrix *m, bool here)
{
	/* the host is measured unless --baseline none (with KEY=VALUE, beside the configurations) */
	bool host = here && strcmp(lab_baseline_spec(rq), "none") != 0;
	unsigned *cpus = NULL;
	size_t ncpus = 0;
	int ret = run_check_measure(self, &rq->own, host, &cpus, &ncpus);

	for (size_t i = 0; ret == CMD_CONTINUE && i < m->n; i++) {
		int64_t smp = m->configs[i].smp;

		if (!smp)
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
json_t *lab_run_options(const struct lab_request *rq)
{
	const struct optset *own = &rq->own, *suite_sets = rq->suite_sets;
	json_t *o = json_object();
	int r = o ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < own->n; i++) {
		/* --quick is the request's field, in its row's place */
		bool quick = !strcmp(own->opts[i].name, "quick");

		for (size_t k = 0; r == 0 && (quick ? rq->quick : own->vals[i].set) && proto_run_options[k]; k++)
			if (!strcmp(own->opts[i].name, proto_run_options[k]) && strcmp(proto_run_options[k], "load"))
				r = json_object_set_new(o, own->opts[i].name,
							quick ? json_true() : lab_opt_json(&own->opts[i], &own->vals[i]));
	}
	for (size_t s = 0; r == 0 && s < vmb_nsuites; s++)
		for (size_t i = 0; r == 0 && i < suite_sets[s].n; i++)
			if (suite_sets[s].vals[i].set) {
				char key[128];

				snprintf(key, sizeof(key), "%s%s", suite_sets[s].prefix, suite_sets[s].opts[i].name);
				r = json_object_set_new(o, key, lab_opt_json(&suite_sets[s].opts[i], &suite_sets[s].vals[i]));
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
void lab_pick_nic_backend(struct lab *l)
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

int lab_prepare(const struct vmb_cmd *self, struct lab *l, struct lab_matrix *m, const char *out)
{
	const struct lab_request *rq = l->rq;
	const struct optset *own = &rq->own;
	const char *baseline = lab_baseline_spec(rq);
	char err[2048], dbpath[4096];
	int ret, r;

	if (!rq->matrix)
		return cmd_usage_error(self, "lab run needs --matrix, e.g. --matrix \"accel=tcg disk=ide,virtio-blk\"");
	if (lab_matrix_parse(rq->matrix, m, err, sizeof(err)) < 0)
		return cmd_usage_error(self, "%s", err);
	/* --disk-cache is the cache key's value where the configuration's part of the matrix gives none
	 * (a choice of the same rows) */
	for (size_t i = 0; i < m->n; i++)
		if (!(m->configs[i].given & (1u << LAB_CACHE)))
			lab_config_set(&m->configs[i], LAB_CACHE, optset_str(own, "disk-cache"));
	/* --disk-format is the image file's (backend=file): given where no configuration has one, it would be ignored */
	if (optset_get(own, "disk-format")->set) {
		size_t i = 0;

		while (i < m->n && !m->configs[i].backend_file)
			i++;
		if (i == m->n)
			return cmd_usage_error(self, "--disk-format says the format of the scratch disk's image file "
					      "(backend=file), and no configuration of the matrix has one");
	}
	for (size_t i = 1; optset_str(own, "kernel") && i < m->n; i++)
		if (strcmp(m->configs[i].v[LAB_ARCH], m->configs[0].v[LAB_ARCH]))
			return cmd_usage_error(self, "--kernel names one kernel, the matrix has two architectures");
	ret = lab_check_host_rows(self, l, m);
	if (ret == CMD_CONTINUE)
		ret = lab_check_labels(self, &rq->labels);
	if (ret == CMD_CONTINUE && strcmp(baseline, LAB_HOST) && strcmp(baseline, "none"))
		ret = lab_baseline_config(self, l, m, baseline);
	if (ret == CMD_CONTINUE)
		ret = lab_check_measure(self, rq, m, !l->check_only);
	/* --rounds auto stops on the verdicts' power: with one operand there is none */
	if (ret == CMD_CONTINUE && l->autorounds && m->n < 2 && !strcmp(baseline, "none"))
		ret = cmd_usage_error(self, "--rounds auto measures until the verdicts between configurations are "
				      "precise enough, and one configuration without a baseline has none: give another "
				      "configuration, a baseline, or --rounds N");
	if (ret != CMD_CONTINUE || l->check_only)
		return ret;
	/* --plan: a report that could not be written is refused as the run would refuse it; nothing opened */
	if (l->plan)
		return cmd_check_output(self, out);
	for (size_t i = 0; i < m->n && !l->nic_be; i++)
		if (lab_config_device(&m->configs[i], LAB_NIC))
			lab_pick_nic_backend(l);
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
	/* and the taps of a libvirt domain's link it left in the root namespace (lablink.h) */
	lab_links_reclaim();
	/* a guest's channel closed under a send (QEMU killed) is an error, not our death */
	(void)signal(SIGPIPE, SIG_IGN);
	r = cmd_install_stop_signals(lab_kill_all);
	if (r < 0) {
		log_errno(r, "installing signal handlers");
		return EXIT_FAILED;
	}
	return CMD_CONTINUE;
}

/* What a lab run and a lab contend leave at their end: every QEMU killed
 * (and its files removed), and what they held released. */
void lab_end(struct lab *l, struct lab_matrix *m)
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

/* What run and contend begin with: --quick's defaults,
 * and the cache's directory (--cache, else the user's).
 * -1 when out of memory. */
int lab_quick_and_cache(struct optset *own, bool quick, char *cache, size_t len)
{
	if (quick && optset_apply_quick(own) < 0)
		return -1;
	if (optset_str(own, "cache"))
		snprintf(cache, len, "%s", optset_str(own, "cache"));
	else
		lab_cache_home(cache, len);
	return 0;
}

const struct vmb_cmd *lab_request_cmd(enum lab_verb verb)
{
	return verb == LAB_VERB_CONTEND ? &cmd_lab_contend_desc : &cmd_lab_run_desc;
}

/* The value of own's row name when the words gave it, else NULL */
static const struct opt_value *given(const struct optset *own, const char *name)
{
	for (size_t i = 0; i < own->n; i++)
		if (!strcmp(own->opts[i].name, name))
			return own->vals[i].set ? &own->vals[i] : NULL;
	return NULL;
}

int lab_request_parse(struct lab_request *rq, int argc, char **argv)
{
	const struct vmb_cmd *self = lab_request_cmd(rq->verb);
	const struct opt_value *v;
	struct strv pos = { 0 }, labels = { 0 };
	int ret, r = 0;

	rq->suite_sets = calloc(vmb_nsuites, sizeof(*rq->suite_sets));
	if (!rq->suite_sets)
		return EXIT_FAILED;
	ret = cmd_parse(self, argc, argv, &rq->own, rq->suite_sets, &pos);
	strv_clear(&pos);
	if (ret != CMD_CONTINUE)
		return ret;
	/* the fields the caller left unset, from the words (a study's option
	 * lines set none of them: check_option_line refuses those) */
	if (!rq->matrix && (v = given(&rq->own, "matrix")))
		rq->matrix = v->s;
	if (!rq->suites && (v = given(&rq->own, "suites")))
		rq->suites = v->s;
	if (!rq->boots && (v = given(&rq->own, "boots")))
		rq->boots = (unsigned)v->i;
	if (!rq->baseline && (v = given(&rq->own, "baseline")))
		rq->baseline = v->s;
	rq->quick |= given(&rq->own, "quick") != NULL;
	if (!rq->rounds && !rq->autorounds && given(&rq->own, "rounds")) {
		ret = cmd_rounds_from(self, &rq->own, "rounds", 100, &rq->rounds, &rq->autorounds);
		if (ret != CMD_CONTINUE)
			return ret;
	}
	/* --label's words first, then the caller's (a study's study=, experiment=, study_run=) */
	if ((v = given(&rq->own, "label"))) {
		for (size_t i = 0; r == 0 && i < v->kv.n; i++)
			r = strv_push(&labels, v->kv.v[i]);
		for (size_t i = 0; r == 0 && i < rq->labels.n; i++)
			r = strv_push(&labels, rq->labels.v[i]);
		strv_clear(&rq->labels);
		rq->labels = labels;
		if (r < 0) {
			log_error("out of memory");
			return EXIT_FAILED;
		}
	}
	return CMD_CONTINUE;
}

int lab_request_rounds(const struct vmb_cmd *self, const struct lab_request *rq, unsigned *n, bool *autop)
{
	*autop = rq->autorounds;
	*n = rq->autorounds ? 100 : rq->rounds ? rq->rounds : 1; /* auto: cmd_rounds_from's most */
	if (!rq->autorounds && (given(&rq->own, "mdd") || given(&rq->own, "budget-total") || given(&rq->own, "margin")))
		return cmd_usage_error(self, "--mdd, --margin and --budget-total say when --rounds auto stops; give "
				       "--rounds auto");
	return CMD_CONTINUE;
}

int lab_request_set(struct lab_request *rq, const char *name, const char *value)
{
	const struct vmb_cmd *self = lab_request_cmd(rq->verb);
	char err[512];

	for (size_t i = 0; i < rq->own.n; i++)
		if (!strcmp(rq->own.opts[i].name, name)) {
			int r = optset_apply(&rq->own, i, value, err, sizeof(err));

			if (r == -ENOMEM) {
				log_error("out of memory");
				return EXIT_FAILED;
			}
			return r < 0 ? cmd_usage_error(self, "%s", err) : CMD_CONTINUE;
		}
	return cmd_usage_error(self, "--%s: lab %s takes no such option", name, self->name);
}

int lab_request_start(struct lab_request *rq)
{
	const struct vmb_cmd *self = lab_request_cmd(rq->verb);
	char cache[4096];
	int ret = CMD_CONTINUE;

	if (rq->session)
		*rq->session = '\0';
	/* a study's -q is applied already, and its labels (study=, experiment=,
	 * study_run=) are lab study's own */
	if (!rq->from_study) {
		cmd_apply_verbosity(&rq->own);
		ret = cmd_check_user_labels(self, &rq->labels);
	}
	if (ret == CMD_CONTINUE)
		ret = lab_suites_normalize(self, rq);
	if (ret != CMD_CONTINUE)
		return ret;
	if (lab_quick_and_cache(&rq->own, rq->quick, cache, sizeof(cache)) < 0)
		return EXIT_FAILED;
	/* lab contend's guests contend on one host */
	if (rq->verb == LAB_VERB_CONTEND && optset_get(&rq->own, "connect")->kv.n > 1)
		return cmd_usage_error(self, "--connect given %zu times: lab contend's guests contend for one host's "
				       "CPUs, give it once (lab run takes one per host)", optset_get(&rq->own, "connect")->kv.n);
	if (rq->verb == LAB_VERB_RUN && optset_get(&rq->own, "connect")->kv.n > 1 && optset_str(&rq->own, "migrate-to"))
		return cmd_usage_error(self, "--migrate-to moves one host's guests: give --connect once with it");
	/* --connect given once per host: a process per host (lab_fleet.c),
	 * each on to lab_request_go with its one connection */
	if (rq->verb == LAB_VERB_RUN && !rq->from_study && optset_get(&rq->own, "connect")->kv.n > 1)
		return lab_fleet(self, rq, cache);
	return lab_request_go(self, rq, cache);
}

void lab_request_release(struct lab_request *rq)
{
	struct strv pos = { 0 };

	if (rq->suite_sets)
		cmd_release(&rq->own, rq->suite_sets, &pos);
	else
		optset_release(&rq->own);
	free(rq->suite_sets);
	rq->suite_sets = NULL;
	strv_clear(&rq->labels);
	free(rq->items);
	rq->items = NULL;
}

const char *lab_baseline_spec(const struct lab_request *rq)
{
	/* lab contend has no --baseline: its guests are compared with the host's view of them */
	return rq->baseline ? rq->baseline : LAB_HOST;
}

int lab_request_main(enum lab_verb verb, int argc, char **argv)
{
	struct lab_request rq = { .verb = verb };
	int ret = lab_request_parse(&rq, argc, argv);

	if (ret == CMD_CONTINUE)
		ret = lab_request_start(&rq);
	lab_request_release(&rq);
	return ret;
}
