/* Importers: one row per format in `importers` below (detect + parse), each
 * turning a peer tool's output into vmbench results with vmbench's metric
 * names and parameters (one file each: import_fio.c, import_iperf3.c,
 * import_sysbench.c, import_vmbench.c); this common part gives them cases,
 * values and checked fields, then validates the document, serializes it and
 * loads it back, so that only what the store can show is returned. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import.h"
#include "import_int.h"
#include "label.h"
#include "../core/hist.h"
#include "../core/result.h"
#include "../core/banned.h"

int import_fail(struct imp *im, const char *fmt, ...)
{
	va_list ap;

	if (!im->bad) {
		va_start(ap, fmt);
		vsnprintf(im->err, im->errlen, fmt, ap);
		va_end(ap);
	}
	im->bad = 1;
	return -EINVAL;
}

static struct vmb_test_result *import_test_of(struct imp *im, const char *suite, const char *test, struct where *w)
{
	struct vmb_suite_result *s = NULL;
	size_t i;

	for (i = 0; i < im->res.nsuites; i++)
		if (!strcmp(im->res.suites[i].name, suite)) {
			s = &im->res.suites[i];
			break;
		}
	if (!s) {
		struct vmb_suite_result *ns = realloc(im->res.suites, (im->res.nsuites + 1) * sizeof(*ns));

		if (!ns)
			return NULL;
		im->res.suites = ns;
		i = im->res.nsuites;
		s = &ns[im->res.nsuites++];
		memset(s, 0, sizeof(*s));
		s->name = strdup(suite);
		if (!s->name)
			return NULL;
	}
	w->s = i;
	for (i = 0; i < s->ntests; i++)
		if (!strcmp(s->tests[i].name, test)) {
			w->t = i;
			return &s->tests[i];
		}
	{
		struct vmb_test_result *nt = realloc(s->tests, (s->ntests + 1) * sizeof(*nt));

		if (!nt)
			return NULL;
		s->tests = nt;
		memset(&nt[s->ntests], 0, sizeof(*nt));
		nt[s->ntests].name = strdup(test);
		if (!nt[s->ntests].name)
			return NULL;
		w->t = s->ntests;
		return &nt[s->ntests++];
	}
}

/* The case of suite.test with these params ("k", "v" pairs, NULL-terminated), found or made. */
struct vmb_case *import_case_of(struct imp *im, const char *suite, const char *test, const char *const *kv,
				struct where *w)
{
	struct vmb_test_result *t = import_test_of(im, suite, test, w);
	struct vmb_case *nc, *c;

	if (!t)
		return NULL;
	for (size_t i = 0; i < t->ncases; i++) {
		size_t n = 0;
		bool same = true;

		for (; kv[2 * n]; n++)
			same &= n < t->cases[i].nparams && !strcmp(t->cases[i].params[n].key, kv[2 * n]) &&
				!strcmp(t->cases[i].params[n].value, kv[2 * n + 1]);
		if (same && n == t->cases[i].nparams) {
			w->c = i;
			return &t->cases[i];
		}
	}
	nc = realloc(t->cases, (t->ncases + 1) * sizeof(*nc));
	if (!nc)
		return NULL;
	t->cases = nc;
	w->c = t->ncases;
	c = &nc[t->ncases++];
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; kv[2 * i]; i++)
		if (vmb_params_add(&c->params, &c->nparams, kv[2 * i], kv[2 * i + 1]) < 0)
			return NULL;
	return c;
}

int import_value(struct vmb_case *c, const char *name, enum vmb_unit unit, enum vmb_dir dir, bool headline,
		 double v)
{
	struct vmb_metric *m = vmb_case_add_metric(c, name, unit, dir);

	if (!m || vmb_metric_push(m, v) < 0)
		return -ENOMEM;
	m->headline = headline;
	c->reps = (unsigned)m->n;
	return 0;
}

/* ---- JSON helpers: a value at a path, or a message naming the path ---- */

const json_t *import_jget(struct imp *im, const json_t *o, const char *path, const char *key, json_type want)
{
	const json_t *x = json_object_get(o, key);
	bool ok = x && (want == JSON_REAL ? json_is_number(x) : json_typeof(x) == want);

	if (im->bad)
		return NULL;
	if (!ok) {
		import_fail(im, "%s%s%s: %s", path, *path ? "." : "", key,
		     x ? (want == JSON_REAL ? "expected a number"
			  : want == JSON_OBJECT ? "expected an object"
			  : want == JSON_ARRAY ? "expected an array"
			  : want == JSON_STRING ? "expected a string" : "has the wrong type")
		       : "missing");
		return NULL;
	}
	return x;
}


/* The bound of each enum kind (import_int.h), as docs/results-schema.md has it. */
const struct import_kind import_kinds[] = {
	[K_BIT_S] = { 1e13, "10 Tbit/s" },
	[K_BYTE_S] = { 1e12, "1 TB/s" },
	[K_IOPS] = { 1e9, "10^9 IOPS" },
	[K_NS] = { 3.6e12, "1 hour" },
	[K_MS] = { 3.6e6, "1 hour" },
	[K_PCT] = { 100, "100%" },
	[K_CPU_PCT] = { 1e5, "100000% (1000 CPUs busy)" },
	[K_COUNT] = { 1e15, "10^15" },
	[K_EVENTS_S] = { 1e10, "10^10 events/s" },
	[K_OPS_S] = { 1e11, "10^11 operations/s" },
	[K_MIB_S] = { 1e7, "10^7 MiB/s" },
};

/* A measured quantity: a finite number from 0 to its kind's bound. NAN
 * after a failure, with a message naming the field by its JSON path. */
double import_jnum(struct imp *im, const json_t *o, const char *path, const char *key, enum kind kind)
{
	const json_t *x = import_jget(im, o, path, key, JSON_REAL);
	double v;

	if (!x)
		return NAN;
	v = json_number_value(x);
	if (!isfinite(v) || v < 0) {
		import_fail(im, "%s%s%s: %g is not a measured value (negative)", path, *path ? "." : "", key, v);
		return NAN;
	}
	if (v > import_kinds[kind].max) {
		import_fail(im, "%s%s%s: %g is beyond what is plausible (at most %s; see \"Imported figures\" in "
		     "docs/results-schema.md)", path, *path ? "." : "", key, v, import_kinds[kind].text);
		return NAN;
	}
	return v;
}


/* ---- the formats ---- */

struct importer {
	struct import_format fmt;
	bool (*detect)(const struct imp_input *in);
	int (*parse)(struct imp *im, const struct imp_input *in);
};

/* Adding a format: one row, its parser, its test. JSON formats see the
 * parsed document, text formats the text; the first row that detects wins. */
static const struct importer importers[] = {
	{ { "fio", "fio --output-format=json (or json+)", NULL, NULL }, import_fio_detect, import_fio },
	{ { "iperf3", "iperf3 -J (TCP or UDP, -P, -R, --bidir)", NULL, NULL }, import_iperf3_detect, import_iperf3 },
	{ { "vmbench", "a vmbench result document (vmbench run --json)", NULL, NULL }, import_vmbench_detect,
	  import_vmbench },
	{ { "sysbench-cpu", "sysbench cpu run output", NULL, NULL }, import_sysbench_cpu_detect, import_sysbench_cpu },
	/* sysbench 1.0 does not print --memory-access-mode */
	{ { "sysbench-memory", "sysbench memory run output", "access", "seq|rnd" }, import_sysbench_memory_detect,
	  import_sysbench_memory },
};

const struct import_format *import_format_at(size_t i)
{
	return i < sizeof(importers) / sizeof(importers[0]) ? &importers[i].fmt : NULL;
}

void import_formats_string(char *buf, size_t len)
{
	size_t n = sizeof(importers) / sizeof(importers[0]), off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 importers[i].fmt.input);

		if (k < 0)
			break;
		off += (size_t)k;
	}
}

/* ---- entry ---- */

static int add_percentiles(json_t *doc, json_t *pct_by_key, const struct vmb_results *res)
{
	/* results and document are in the same order: indices match */
	for (size_t s = 0; s < res->nsuites; s++)
		for (size_t t = 0; t < res->suites[s].ntests; t++)
			for (size_t c = 0; c < res->suites[s].tests[t].ncases; c++) {
				const struct vmb_case *vc = &res->suites[s].tests[t].cases[c];
				json_t *jc = json_array_get(json_object_get(json_array_get(json_object_get(
							json_array_get(json_object_get(doc, "suites"), s), "tests"), t), "cases"), c);

				for (size_t m = 0; m < vc->nmetrics; m++) {
					char key[256];
					json_t *h;

					snprintf(key, sizeof(key), "%zu/%zu/%zu/%s", s, t, c, vc->metrics[m].name);
					h = json_object_get(pct_by_key, key);
					if (h && json_object_set(json_array_get(json_object_get(jc, "metrics"), m), "histogram",
								 h) < 0)
						return -ENOMEM;
				}
			}
	return 0;
}

/* Where the JSON document starts: at the first line whose first non-blank
 * character is '{'. *skipped counts the non-blank lines before it (fio's
 * job lines and warnings when stderr went to the same file), *line the
 * line it starts on. NULL when no line starts a JSON object. */
static const char *json_start(const char *text, unsigned *skipped, int *line)
{
	const char *p = text;

	*skipped = 0;
	*line = 1;
	while (*p) {
		const char *q = p, *nl;

		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q == '{')
			return q;
		nl = strchr(p, '\n');
		if (*q != '\n' && *q != '\0')
			(*skipped)++;
		if (!nl)
			break;
		p = nl + 1;
		(*line)++;
	}
	return NULL;
}

/* doc_json_parse's "line L, column C: why" as "NAME: not valid JSON at
 * line L, column C: why", L counted in the file (first: the JSON's line). */
static void json_error_at(char *err, size_t errlen, const char *name, const char *why, int first)
{
	int l, c;

	if (sscanf(why, "line %d, column %d", &l, &c) == 2 && strchr(why, ':'))
		snprintf(err, errlen, "%s: not valid JSON at line %d, column %d%s", name, l + first - 1, c,
			 strchr(why, ':'));
	else
		snprintf(err, errlen, "%s: not valid JSON: %s", name, why);
}

/* Non-blank lines after the end of the JSON document. */
static unsigned trailing_lines(const char *p)
{
	unsigned n = 0;
	bool blank = true;

	for (; *p; p++) {
		if (*p == '\n') {
			n += !blank;
			blank = true;
		} else if (*p != ' ' && *p != '\t' && *p != '\r') {
			blank = false;
		}
	}
	return n + !blank;
}

/* Every sample is in: summaries, then the document with the labels. */
static json_t *build_doc(struct imp *im, const char *tool, const char *name, const struct strv *labels)
{
	struct strv all = { 0 };
	json_t *doc = NULL, *fp;
	char kv[64], why[256];

	for (size_t s = 0; s < im->res.nsuites; s++)
		for (size_t t = 0; t < im->res.suites[s].ntests; t++)
			for (size_t c = 0; c < im->res.suites[s].tests[t].ncases; c++) {
				struct vmb_case *vc = &im->res.suites[s].tests[t].cases[c];

				for (size_t m = 0; m < vc->nmetrics; m++)
					stats_summarize(vc->metrics[m].samples, vc->metrics[m].n, &vc->metrics[m].sum);
			}
	snprintf(kv, sizeof(kv), "source=%s", tool);
	if (strv_push(&all, kv) < 0)
		goto out;
	for (size_t i = 0; labels && i < labels->n; i++)
		if (strv_push(&all, labels->v[i]) < 0)
			goto out;
	fp = json_pack("{s:n, s:{s:s, s:[]}, s:s}", "hostname", "hypervisor", "name", "unknown", "sources",
		       "imported_from", name);
	if (!fp)
		goto out;
	if (doc_from_results(&im->res, &(struct doc_meta){ .argc = 0,
							    .started = im->tool_started > 0 ? im->tool_started : wall_time_s(),
							    .ended = im->tool_started > 0 ? im->tool_started + im->tool_duration
											: wall_time_s(),
							    .fingerprint = fp, .labels = &all }, &doc, why, sizeof(why)) < 0) {
		import_fail(im, "%s", why);
		doc = NULL;
	}
	json_decref(fp);
	if (!doc)
		goto out;
	if (add_percentiles(doc, im->pct, &im->res) < 0 ||
	    json_object_set_new(json_object_get(doc, "tool"), "imported_from", json_string(tool)) < 0) {
		json_decref(doc);
		doc = NULL;
		goto out;
	}
	json_object_del(doc, "settings");
out:
	strv_clear(&all);
	return doc;
}

/* --param KEY=VALUE: the format's unstated parameter, in every case where
 * the output left it unstated; never over a value the output printed. */
static int apply_params(struct imp *im, const struct import_format *f, const struct strv *params)
{
	for (size_t i = 0; params && i < params->n; i++) {
		const char *kv = params->v[i], *eq = strchr(kv, '='), *val;
		size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
		bool found = false;

		if (!f->param)
			return import_fail(im, "--param %s: %s output states every parameter; --param is for a parameter "
					"an output does not print", kv, f->tool);
		if (!eq || klen != strlen(f->param) || strncmp(kv, f->param, klen))
			return import_fail(im, "--param %s: the parameter %s output does not print is %s (%s=%s)", kv, f->tool,
				    f->param, f->param, f->choices);
		val = eq + 1;
		if (!str_in_list(f->choices, '|', val))
			return import_fail(im, "--param %s: expected %s=%s", kv, f->param, f->choices);
		for (size_t s = 0; s < im->res.nsuites; s++)
			for (size_t t = 0; t < im->res.suites[s].ntests; t++)
				for (size_t c = 0; c < im->res.suites[s].tests[t].ncases; c++) {
					struct vmb_case *vc = &im->res.suites[s].tests[t].cases[c];

					for (size_t p = 0; p < vc->nparams; p++) {
						char *nv;

						if (strcmp(vc->params[p].key, f->param))
							continue;
						if (strcmp(vc->params[p].value, IMPORT_UNSTATED))
							return import_fail(im, "--param %s: the output says %s=%s", kv, f->param,
								    vc->params[p].value);
						nv = strdup(val);
						if (!nv)
							return -ENOMEM;
						free(vc->params[p].value);
						vc->params[p].value = nv;
						found = true;
					}
				}
		if (!found)
			return import_fail(im, "--param %s: no imported case has %s", kv, f->param);
	}
	return 0;
}

/* The user's --label KEY=VALUE on a document imported whole. */
static int add_labels(json_t *doc, const struct strv *labels)
{
	json_t *l = json_object_get(doc, "labels");

	for (size_t i = 0; labels && i < labels->n; i++) {
		const char *eq = strchr(labels->v[i], '=');
		char key[128];

		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - labels->v[i]), labels->v[i]);
		if (json_object_set_new(l, key, json_string(eq + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int import_parse(const char *text, const char *name, const struct import_opts *opts, struct import_result *out,
		 char *err, size_t errlen)
{
	const struct strv *labels = opts ? opts->labels : NULL, *params = opts ? opts->params : NULL;
	struct imp im = { .err = err, .errlen = errlen, .pct = json_object() };
	struct imp_input in = { 0 };
	const struct importer *imp = NULL;
	json_t *root = NULL, *doc = NULL, *back = NULL;
	unsigned skipped = 0;
	const char *start;
	char *dumped = NULL, formats[512], why[768];
	int r = -EINVAL, line;

	if (!im.pct) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	import_formats_string(formats, sizeof(formats));
	/* a UTF-8 byte-order mark, as some editors save files */
	if (!strncmp(text, "\xEF\xBB\xBF", 3))
		text += 3;
	in.text = text;
	in.fio_logs = opts ? opts->fio_logs : NULL;
	in.nfio_logs = opts ? opts->nfio_logs : 0;
	start = json_start(text, &skipped, &line);
	/* a text format, unless the input begins as JSON */
	if (!start || skipped) {
		for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]) && !imp; i++)
			if (importers[i].detect(&in))
				imp = &importers[i];
		if (imp)
			skipped = 0; /* a text format reads every line */
	}
	if (!imp && start) {
		const char *rest, *after;
		char dup[256] = "";

		r = doc_json_parse(start, false, &root, &rest, why, sizeof(why));
		/* a key twice: refused below for a vmbench document, read for a tool's */
		if (r == -ENOTUNIQ) {
			snprintf(dup, sizeof(dup), "%s", why);
			r = doc_json_parse(start, true, &root, &rest, why, sizeof(why));
		}
		if (r < 0) {
			json_error_at(err, errlen, name, why, line);
			r = -EINVAL;
			goto out;
		}
		r = -EINVAL;
		if (!json_is_object(root)) {
			snprintf(err, errlen, "%s: the JSON is not an object", name);
			goto out;
		}
		in.root = root;
		for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]) && !imp; i++)
			if (importers[i].detect(&in))
				imp = &importers[i];
		if (!imp) {
			snprintf(err, errlen, "%s: JSON, but none that vmbench imports (%s)", name, formats);
			goto out;
		}
		/* vmbench writes its documents whole and once: a key twice is
		 * damage or an edit, and which of the two was meant is a guess */
		if (*dup && !strcmp(imp->fmt.tool, "vmbench")) {
			json_error_at(err, errlen, name, dup, line);
			goto out;
		}
		/* After the JSON: a tool's own lines (fio's warnings, its stderr
		 * saved with it) are skipped and counted; a second JSON value, or
		 * anything after a vmbench document, is refused: which of two
		 * documents was meant is a guess. */
		after = rest + strspn(rest, " \t\r\n");
		if (*after && (*after == '{' || *after == '[' || !strcmp(imp->fmt.tool, "vmbench"))) {
			snprintf(err, errlen, "%s: data after the %s JSON document (%s); import one document per file",
				 name, imp->fmt.tool, *after == '{' || *after == '[' ? "a second JSON value" : "text");
			goto out;
		}
		skipped += trailing_lines(rest);
	}
	if (!imp) {
		snprintf(err, errlen, "%s: not a format vmbench imports (%s)", name, formats);
		goto out;
	}
	if (in.nfio_logs && imp->parse != import_fio) {
		snprintf(err, errlen, "%s: %s output, and %s is one of fio's logs: logs are imported with the fio JSON "
			 "of their run", name, imp->fmt.tool, in.fio_logs[0].name);
		goto out;
	}
	r = imp->parse(&im, &in);
	if (r == 0)
		r = apply_params(&im, &imp->fmt, params);
	if (r < 0) {
		if (im.bad) {
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s: %s", name, imp->fmt.tool, why);
			r = -EINVAL;
		} else {
			snprintf(err, errlen, "%s: out of memory", name);
		}
		goto out;
	}
	if (im.doc) {
		doc = im.doc;
		im.doc = NULL;
		r = add_labels(doc, labels);
	} else {
		doc = build_doc(&im, imp->fmt.tool, name, labels);
		r = doc ? 0 : -ENOMEM;
		if (!doc && im.bad) {
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s: %s", name, imp->fmt.tool, why);
			r = -EINVAL;
			goto out;
		}
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	/* every label, the document's own and the user's: by the grammar, and
	 * none the lab sets (a run cannot claim a lab session or a study)
	 * unless the user says the document is a lab session's (the user's
	 * own --label never: cmd_check_user_labels) */
	{
		const char *k;
		json_t *v;

		r = -EINVAL;
		json_object_foreach(json_object_get(doc, "labels"), k, v) {
			/* kept as the lab wrote them (an old session's config=accel=kvm nic=e1000 too) */
			if (opts && opts->lab_labels && label_lab_key(k, strlen(k)))
				continue;
			if (json_is_string(v) && label_check(k, strlen(k), json_string_value(v), json_string_length(v),
							     LABEL_SET, why, sizeof(why)) < 0) {
				snprintf(err, errlen, "%s: %s: label %s%s", name, imp->fmt.tool, why,
					 label_lab_key(k, strlen(k)) ? " (a lab session's document, saved from another "
								      "store: import --keep-lab-labels)" : "");
				goto out;
			}
		}
	}
	/* Only what loads back is returned: the store keeps the text, and
	 * every reader loads it with doc_load_string. */
	r = -EINVAL;
	if (doc_validate(doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s: the imported document would not be valid: %s", name, imp->fmt.tool, why);
		goto out;
	}
	dumped = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (!dumped) {
		r = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	if (doc_load_string(dumped, name, &back, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s: the imported document would not load back: %s", name, imp->fmt.tool, why);
		goto out;
	}
	out->doc = back;
	out->tool = imp->fmt.tool;
	out->skipped = skipped;
	r = 0;
out:
	free(dumped);
	json_decref(doc);
	json_decref(im.doc);
	json_decref(root);
	json_decref(im.pct);
	vmb_results_release(&im.res);
	return r;
}

