/* The evidence of a lab run's failed boots: the kept files, the record of
 * each failure and its marker document in the store (evidence.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "evidence.h"
#include "../core/sys.h"
#include "../store/doc.h"
#include "../core/util.h"
#include "../core/banned.h"

int lab_state_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	/* logs are state (XDG): not a cache that may be cleaned, not the data of the store */
	if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/vmbench", xdg);
	else if (home && *home == '/')
		snprintf(buf, len, "%s/.local/state/vmbench", home);
	else
		return -ENOENT;
	return 0;
}

void lab_evidence_init(struct lab_evidence *e)
{
	char dir[4000];

	memset(e, 0, sizeof(*e));
	if (lab_state_dir(dir, sizeof(dir)) == 0)
		snprintf(e->base, sizeof(e->base), "%s/lab-failures", dir);
}

/* This run's directory, new: lab-DATE-TIME (UTC), numbered when two runs
 * fail within the same second. */
static int evidence_dir(struct lab_evidence *e, char *note, size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int r;

	if (e->dir[0])
		return 0;
	if (!e->base[0])
		return errf(note, len, -ENOENT, "nothing was kept: no place for it (set XDG_STATE_HOME or HOME)");
	r = file_mkdirs(e->base);
	if (r < 0)
		return errf(note, len, r, "nothing was kept: making %s: %s", e->base, strerror(-r));
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	r = -EEXIST;
	for (unsigned n = 1; r == -EEXIST && n < 1000; n++) {
		if (n == 1)
			snprintf(e->dir, sizeof(e->dir), "%s/lab-%s", e->base, stamp);
		else
			snprintf(e->dir, sizeof(e->dir), "%s/lab-%s-%u", e->base, stamp, n);
		r = mkdir(e->dir, 0755) < 0 ? -errno : 0;
	}
	if (r < 0) {
		errf(note, len, r, "nothing was kept: making a directory in %s: %s", e->base, strerror(-r));
		e->dir[0] = '\0';
	}
	return r;
}

/* "accel=tcg disk=ide" -> "accel=tcg_disk=ide": a configuration's name as
 * part of a file name (no '/', no space, no leading dot). */
static void file_stem(const char *name, char *buf, size_t len)
{
	size_t o = 0;

	for (; *name && o + 1 < len; name++) {
		char c = *name;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  (o && c == '.') || strchr("=,-_+", c);

		buf[o++] = ok ? c : '_';
	}
	buf[o] = '\0';
}

/* One kept file: text as it was read (read_file dropped the final newline),
 * in a new file of the run's directory; its path, or null with why in note. */
static json_t *keep_file(const struct lab_evidence *e, const char *stem, const char *kind, const char *text,
			 char *note, size_t notelen, size_t *noff)
{
	char path[4400], *data;
	int r;

	if (!text)
		return json_null();
	snprintf(path, sizeof(path), "%s/%s.%s", e->dir, stem, kind);
	data = xasprintf("%s%s", text, *text ? "\n" : "");
	r = data ? file_write_new(path, data, strlen(data)) : -ENOMEM;
	free(data);
	if (r < 0) {
		str_appendf(note, notelen, noff, "%s%s could not be written: %s", *noff ? "; " : "", path, strerror(-r));
		return json_null();
	}
	return json_string(path) ?: json_null();
}

json_t *lab_evidence_keep(struct lab_evidence *e, const char *name, unsigned round, unsigned try, unsigned tries,
			  const struct lab_failure *f, const char *reason, char *note, size_t notelen)
{
	char stem[300], cname[200];
	json_t *console = NULL, *qemu = NULL;
	size_t noff = 0;

	note[0] = '\0';
	if ((f->console || f->qemu_log) && evidence_dir(e, note, notelen) == 0) {
		file_stem(name, cname, sizeof(cname));
		snprintf(stem, sizeof(stem), "%s.round%u.try%u", cname, round, try);
		console = keep_file(e, stem, "console.log", f->console, note, notelen, &noff);
		qemu = keep_file(e, stem, "qemu.log", f->qemu_log, note, notelen, &noff);
	}
	return json_pack("{s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:o, s:o}", "config", name, "round", (json_int_t)round,
			 "try", (json_int_t)try, "tries", (json_int_t)tries, "step", f->step[0] ? f->step : "boot",
			 "reason", reason, "outcome", "round failed", "console", console ? console : json_null(),
			 "qemu_log", qemu ? qemu : json_null());
}

json_t *lab_failure_marker(const json_t *record, char *err, size_t errlen)
{
	struct vmb_results none = { 0 };
	json_t *fp = json_pack("{s:{s:s}}", "hypervisor", "name", "unknown"), *doc = NULL;
	json_t *lf = json_deep_copy(record);
	double now = wall_time_s();

	if (!fp || !lf || json_object_del(lf, "config") < 0) {
		errf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if (doc_from_results(&none, &(struct doc_meta){ .fingerprint = fp, .started = now, .ended = now }, &doc, err,
			     errlen) < 0)
		goto out;
	if (json_object_set(doc, "lab_failure", lf) < 0) {
		errf(err, errlen, -ENOMEM, "out of memory");
		json_decref(doc);
		doc = NULL;
	}
out:
	json_decref(lf);
	json_decref(fp);
	return doc;
}
