/* vmbench export: one run as JSON, CSV, Markdown or OpenMetrics text (for
 * Prometheus's textfile collector: one gauge per summary statistic, with
 * the case's parameters and the run's labels as labels). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/series.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../core/banned.h"

const struct vmb_opt export_opts[] = {
	{ .name = "format", .type = OPT_STRING, .def = "json", .choices = "json|csv|markdown|openmetrics",
	  .metavar = "FMT", .help = "output format" },
	{ .name = "run-id", .type = OPT_BOOL,
	  .help = "openmetrics: label every series with the run's id (run_id); off by default, as each run then makes "
		  "new series and their number grows with every run" },
	{ .name = "series", .type = OPT_BOOL,
	  .help = "csv: the series over time instead of the metrics, one row per point (run, suite, test, params, "
		  "repetition, t_s, metric, value, unit)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_export(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_export_desc = {
	.name = "export",
	.fn = cmd_export,
	.args = "RUN|FILE [--format json|csv|markdown|openmetrics] [--series]",
	.summary = "write one run as JSON, CSV, Markdown or OpenMetrics (Prometheus textfile collector)",
	.opts = export_opts,
	.min_args = 1,
	.max_args = 1,
};

static const char *const stats[] = { "mean", "median", "stddev", "min", "max", "ci95_low", "ci95_high" };

/* Units as Prometheus names them: the base unit, its suffix on the family's
 * name and the divisor that converts a document's value to it (every
 * statistic exported is linear in the value). Other units keep their
 * values, the HELP text saying which. */
static const struct om_unit {
	const char *unit, *base;
	double divisor;
} om_units[] = {
	{ "ns", "seconds", 1e9 },
	{ "s", "seconds", 1 },
	{ "B", "bytes", 1 },
};

static const struct om_unit *om_unit_of(const char *unit)
{
	for (size_t i = 0; unit && i < sizeof(om_units) / sizeof(om_units[0]); i++)
		if (!strcmp(om_units[i].unit, unit))
			return &om_units[i];
	return NULL;
}
static const char *const pcts[] = { "p50", "p90", "p99", "p99.9", "p99.99" };

/* An OpenMetrics name, [a-zA-Z_][a-zA-Z0-9_]*, from any text: other bytes
 * become '_', a leading digit gets a '_' before it, and a name that would
 * then start with "__" an 'x' before it. Prometheus reserves "__" names for
 * itself and drops them after relabelling, so such a label would vanish
 * from the scraped series: it is renamed, never passed on. Checked after
 * the bytes are replaced: "é_x" and "--x" become "__..." only then. NULL
 * when out of memory. */
static char *om_name(const char *s)
{
	size_t n = strlen(s);
	char *b = malloc(n + 3), *p = b + 1;

	if (!b)
		return NULL;
	if (!*s || (*s >= '0' && *s <= '9'))
		*p++ = '_';
	for (; *s; s++)
		*p++ = isalnum((unsigned char)*s) && (unsigned char)*s < 0x80 ? *s : '_';
	*p = '\0';
	if (b[1] == '_' && b[2] == '_')
		b[0] = 'x';
	else
		memmove(b, b + 1, strlen(b + 1) + 1);
	return b;
}

static bool om_valid(const char *s)
{
	char *n = om_name(s);
	bool same = n && !strcmp(n, s);

	free(n);
	return same;
}

/* Give `key` a label name no other label of the sample has: its own when
 * that is valid and free, else the sanitized name, prefix+name, name_2,
 * name_3... (the first one free). Recorded in map and used. */
static int om_assign(json_t *used, json_t *map, const char *key, const char *prefix)
{
	char *base = om_name(key), *name = NULL;
	int r = -ENOMEM;

	if (!base)
		return -ENOMEM;
	if (!json_object_get(used, base))
		name = xstrdup(base);
	else if (prefix && (name = xasprintf("%s%s", prefix, base)) && json_object_get(used, name)) {
		free(name);
		name = NULL;
	}
	for (unsigned i = 2; !name || json_object_get(used, name); i++) {
		free(name);
		name = xasprintf("%s_%u", base, i);
		if (!name)
			goto out;
	}
	if (json_object_set_new(used, name, json_true()) == 0 && json_object_set_new(map, key, json_string(name)) == 0)
		r = 0;
out:
	free(base);
	free(name);
	return r;
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Assign names to the keys of obj: those that are valid names first, so a
 * "disk_type" keeps its name and a "disk.type" beside it becomes
 * "disk_type_2"; each group in sorted order, so the result depends on the
 * keys only. */
static int om_assign_all(json_t *used, json_t *map, const json_t *obj, const char *prefix)
{
	size_t n = json_object_size(obj), nk = 0;
	const char **keys = calloc(n + 1, sizeof(*keys));
	const char *k;
	json_t *v;
	int r = 0;

	if (!keys)
		return -ENOMEM;
	json_object_foreach((json_t *)obj, k, v)
		keys[nk++] = k;
	qsort(keys, nk, sizeof(*keys), cmp_keys);
	for (int pass = 0; pass < 2 && r == 0; pass++)
		for (size_t i = 0; i < nk && r == 0; i++)
			if (om_valid(keys[i]) == (pass == 0))
				r = om_assign(used, map, keys[i], prefix);
	free(keys);
	return r;
}

/* The label names of a document: the fixed ones, then every case's
 * parameters, then the run's labels (which get a label_ prefix when a
 * name is taken). The same key has the same name in every sample. */
struct om_names {
	json_t *params, *labels;
};

static const char *const om_fixed[] = { "stat", "run_id", "host", "hypervisor" };

static int om_names_init(struct om_names *nm, const json_t *doc)
{
	json_t *used = json_object(), *all = json_object(), *s, *t, *c;
	size_t i, j, k;
	int r = -ENOMEM;

	nm->params = json_object();
	nm->labels = json_object();
	if (!used || !all || !nm->params || !nm->labels)
		goto out;
	for (i = 0; i < sizeof(om_fixed) / sizeof(om_fixed[0]); i++)
		if (json_object_set_new(used, om_fixed[i], json_true()) < 0)
			goto out;
	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				if (json_object_update(all, json_object_get(c, "params")) < 0)
					goto out;
	r = om_assign_all(used, nm->params, all, NULL);
	if (r == 0)
		r = om_assign_all(used, nm->labels, json_object_get(doc, "labels"), "label_");
out:
	json_decref(used);
	json_decref(all);
	return r;
}

static void om_names_release(struct om_names *nm)
{
	json_decref(nm->params);
	json_decref(nm->labels);
}

/* A label value or HELP text: backslash, double quote and newline escaped. */
static void om_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void om_label(FILE *f, bool first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	om_escape(f, value);
	fputc('"', f);
}

static void om_labels(FILE *f, const json_t *doc, const struct om_names *nm, const json_t *params, const char *stat,
		      bool run_id)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	const char *k;
	json_t *v;

	fputc('{', f);
	om_label(f, true, "stat", stat);
	if (run_id)
		om_label(f, false, "run_id", json_string_value(json_object_get(doc, "id")));
	om_label(f, false, "host", json_string_value(json_object_get(fp, "hostname")));
	om_label(f, false, "hypervisor", json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "name")));
	json_object_foreach((json_t *)params, k, v) {
		char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

		om_label(f, false, json_string_value(json_object_get(nm->params, k)), s ? s : json_string_value(v));
		free(s);
	}
	json_object_foreach(json_object_get(doc, "labels"), k, v)
		om_label(f, false, json_string_value(json_object_get(nm->labels, k)), json_string_value(v));
	fputc('}', f);
}

/* One case of a metric: a sample per summary statistic and percentile. */
static void om_samples(FILE *f, const char *family, const json_t *doc, const struct om_names *nm, const json_t *c,
		       const json_t *m, bool run_id)
{
	const struct om_unit *u = om_unit_of(json_string_value(json_object_get(m, "unit")));
	double div = u ? u->divisor : 1;
	const json_t *sum = json_object_get(m, "summary");
	const json_t *pc = json_object_get(json_object_get(m, "histogram"), "percentiles");

	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		const json_t *v = json_object_get(sum, stats[i]);

		if (!json_is_number(v))
			continue;
		fputs(family, f);
		om_labels(f, doc, nm, json_object_get(c, "params"), stats[i], run_id);
		fprintf(f, " %.17g\n", json_number_value(v) / div);
	}
	for (size_t i = 0; pc && i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		const json_t *v = json_object_get(pc, pcts[i]);

		if (!json_is_number(v))
			continue;
		fputs(family, f);
		om_labels(f, doc, nm, json_object_get(c, "params"), pcts[i], run_id);
		fprintf(f, " %.17g\n", json_number_value(v) / div);
	}
}

/* OpenMetrics wants each family's samples together, its metadata once and
 * no two families of one name: families are gathered first (in the order
 * they first appear), then named, then printed. */
static int print_openmetrics(FILE *f, const json_t *doc, bool run_id)
{
	json_t *families = json_object(), *used = json_object(), *s, *t, *c, *m, *list;
	struct om_names nm = { 0 };
	size_t i, j, k, l;
	const char *key;
	int r = -ENOMEM;

	if (!families || !used || om_names_init(&nm, doc) < 0)
		goto out;
	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "metrics"), l, m) {
		const struct om_unit *u = om_unit_of(json_string_value(json_object_get(m, "unit")));
		char *raw = xasprintf("vmbench_%s_%s_%s%s%s", json_string_value(json_object_get(s, "name")),
				      json_string_value(json_object_get(t, "name")),
				      json_string_value(json_object_get(m, "name")), u ? "_" : "", u ? u->base : "");

		if (!raw)
			goto out;
		list = json_object_get(families, raw);
		if (!list) {
			list = json_array();
			if (json_object_set_new(families, raw, list) < 0)
				list = NULL;
		}
		free(raw);
		if (!list || json_array_append_new(list, json_pack("[O, O]", c, m)) < 0)
			goto out;
	}
	json_object_foreach(families, key, list) {
		json_t *names = json_object(), *e;
		const json_t *m0 = json_array_get(json_array_get(list, 0), 1);
		const struct om_unit *u;
		const char *name;
		size_t nl;

		if (!names || om_assign(used, names, key, NULL) < 0) {
			json_decref(names);
			goto out;
		}
		name = json_string_value(json_object_get(names, key));
		u = om_unit_of(json_string_value(json_object_get(m0, "unit")));
		fprintf(f, "# TYPE %s gauge\n", name);
		/* OpenMetrics: a family with a UNIT has it as its name's suffix (om_assign may have renamed it) */
		nl = strlen(name);
		if (u && nl > strlen(u->base) && !strcmp(name + nl - strlen(u->base), u->base))
			fprintf(f, "# UNIT %s %s\n", name, u->base);
		fprintf(f, "# HELP %s ", name);
		om_escape(f, u ? u->base : json_string_value(json_object_get(m0, "unit")));
		fputs(", ", f);
		om_escape(f, json_string_value(json_object_get(m0, "direction")));
		fputs(" is better\n", f);
		json_array_foreach(list, i, e)
			om_samples(f, name, doc, &nm, json_array_get(e, 0), json_array_get(e, 1), run_id);
		json_decref(names);
		if (cmd_stdout_check(false) < 0) {
			r = -EIO;
			goto out;
		}
	}
	fputs("# EOF\n", f);
	r = 0;
out:
	if (r == -ENOMEM)
		log_error("out of memory writing OpenMetrics");
	om_names_release(&nm);
	json_decref(families);
	json_decref(used);
	return r;
}

/* Call fn for every metric of the document; stop at its first error. */
static int each_metric(const json_t *doc, int (*fn)(FILE *, const json_t *, const json_t *, const json_t *,
						     const json_t *), FILE *f)
{
	size_t i, j, k, l;
	json_t *s, *t, *c, *m;
	int r;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "metrics"), l, m)
					if ((r = fn(f, s, t, c, m)) < 0)
						return r;
	return 0;
}

/* The case's parameters as compare writes them: "bs=4096 qd=32" in CSV
 * (exact), "bs=4k qd=32" for a reader. */
static void params_text(const json_t *c, char *buf, size_t len, bool exact)
{
	char *params = json_dumps(json_object_get(c, "params"), JSON_SORT_KEYS | JSON_COMPACT);

	buf[0] = '\0';
	if (params && exact)
		cmp_params_text_exact(params, buf, len);
	else if (params)
		cmp_params_text(params, buf, len);
	free(params);
}

/* Markdown: a '|' inside a cell would end it. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

static void numbers(FILE *f, const json_t *m, const char *sep, const char *num)
{
	const json_t *sum = json_object_get(m, "summary");
	const json_t *pc = json_object_get(json_object_get(m, "histogram"), "percentiles");

	fprintf(f, "%s%lld", sep, (long long)json_integer_value(json_object_get(sum, "n")));
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		const json_t *v = json_object_get(sum, stats[i]);

		fputs(sep, f);
		if (json_is_number(v))
			fprintf(f, num, json_number_value(v));
	}
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = json_object_get(pc, pcts[i]);

		fputs(sep, f);
		if (json_is_number(v))
			fprintf(f, num, json_number_value(v));
	}
}

static int csv_row(FILE *f, const json_t *s, const json_t *t, const json_t *c, const json_t *m)
{
	const char *text[] = { json_string_value(json_object_get(s, "name")), json_string_value(json_object_get(t, "name")),
			       NULL, json_string_value(json_object_get(m, "name")),
			       json_string_value(json_object_get(m, "unit")),
			       json_string_value(json_object_get(m, "direction")) };
	char params[1024];

	params_text(c, params, sizeof(params), true);
	text[2] = params;
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		if (i)
			fputc(',', f);
		cmp_csv_field(f, text[i]);
	}
	numbers(f, m, ",", "%.17g");
	fputc('\n', f);
	return cmd_stdout_check(false);
}

static int md_row(FILE *f, const json_t *s, const json_t *t, const json_t *c, const json_t *m)
{
	char params[1024];

	params_text(c, params, sizeof(params), false);
	fputs("| ", f);
	md_cell(f, json_string_value(json_object_get(s, "name")));
	fputc('.', f);
	md_cell(f, json_string_value(json_object_get(t, "name")));
	fputs(" | ", f);
	md_cell(f, params);
	fputs(" | ", f);
	md_cell(f, json_string_value(json_object_get(m, "name")));
	fputs(" | ", f);
	md_cell(f, json_string_value(json_object_get(m, "unit")));
	fputs(" | ", f);
	md_cell(f, json_string_value(json_object_get(m, "direction")));
	numbers(f, m, " | ", "%.6g");
	fputs(" |\n", f);
	return cmd_stdout_check(false);
}

static int cmd_export(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	json_t *docs = NULL, *doc;
	const char *fmt;
	char name[256];
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	fmt = optset_str(&own, "format");
	if (optset_bool(&own, "series") && strcmp(fmt, "csv")) {
		ret = cmd_usage_error(self, "--series goes with --format csv (one row per point), not --format %s", fmt);
		goto out;
	}
	ret = cmd_load_operand(self, pos.v[0], optset_str(&own, "db"), &db, &docs, name, sizeof(name));
	if (ret != CMD_CONTINUE)
		goto out;
	if (json_array_size(docs) != 1) {
		ret = cmd_usage_error(self, "'%s' selects %zu runs; export takes one (a run number, id or file)", pos.v[0],
				      json_array_size(docs));
		goto out;
	}
	doc = json_array_get(docs, 0);
	if (optset_bool(&own, "series")) {
		r = series_print_csv(stdout, doc);
	} else if (!strcmp(fmt, "json")) {
		r = doc_write_file(doc, "-");
	} else if (!strcmp(fmt, "openmetrics")) {
		r = print_openmetrics(stdout, doc, optset_bool(&own, "run-id"));
	} else if (!strcmp(fmt, "csv")) {
		fputs("suite,test,params,metric,unit,direction,n,mean,median,stddev,min,max,ci95_low,ci95_high,p50,p90,p99\n",
		      stdout);
		r = each_metric(doc, csv_row, stdout);
	} else {
		fputs("| test | params | metric | unit | better | n | mean | median | stddev | min | max | ci95 low | "
		      "ci95 high | p50 | p90 | p99 |\n|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", stdout);
		r = each_metric(doc, md_row, stdout);
	}
	if (r == 0)
		r = cmd_stdout_check(true);
	ret = r < 0 ? EXIT_FAILED : EXIT_OK;
out:
	json_decref(docs);
	db_close(db);
	cmd_release(&own, NULL, &pos);
	return ret;
}
