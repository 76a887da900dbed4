/* vmbench export: one run as JSON, CSV, Markdown or OpenMetrics text (for
 * Prometheus's textfile collector: one gauge per summary statistic, with
 * the case's parameters and the run's labels as labels). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/text.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../core/banned.h"

const struct vmb_opt export_opts[] = {
	{ .name = "format", .type = OPT_STRING, .def = "json", .choices = "json|csv|markdown|openmetrics",
	  .metavar = "FMT", .help = "output format" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static const char *const stats[] = { "mean", "median", "stddev", "min", "max", "ci95_low", "ci95_high" };
static const char *const pcts[] = { "p50", "p90", "p99", "p99.9", "p99.99" };

/* OpenMetrics names: [a-zA-Z_][a-zA-Z0-9_]* */
static void om_name(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++)
		buf[i++] = isalnum((unsigned char)*s) ? *s : '_';
	buf[i] = '\0';
}

static void om_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void om_labels(FILE *f, const json_t *doc, const json_t *params, const char *stat)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	const char *k;
	json_t *v;
	char key[128];

	fprintf(f, "{stat=\"%s\",run_id=\"", stat);
	om_value(f, json_string_value(json_object_get(doc, "id")));
	fputs("\",host=\"", f);
	om_value(f, json_string_value(json_object_get(fp, "hostname")) ?: "");
	fputs("\",hypervisor=\"", f);
	om_value(f, json_string_value(json_object_get(json_object_get(fp, "hypervisor"), "name")) ?: "");
	fputc('"', f);
	json_object_foreach((json_t *)params, k, v) {
		char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

		om_name(k, key, sizeof(key));
		fprintf(f, ",%s=\"", key);
		om_value(f, s ? s : json_string_value(v));
		fputc('"', f);
		free(s);
	}
	/* the run's labels; one named like a parameter gets a label_ prefix */
	json_object_foreach(json_object_get(doc, "labels"), k, v) {
		om_name(k, key, sizeof(key));
		fprintf(f, ",%s%s=\"", json_object_get(params, k) || !strcmp(k, "stat") || !strcmp(k, "host") ||
					       !strcmp(k, "hypervisor") || !strcmp(k, "run_id") ? "label_" : "", key);
		om_value(f, json_string_value(v));
		fputc('"', f);
	}
	fputc('}', f);
}

/* Call fn for every metric of the document. */
static void each_metric(const json_t *doc, void (*fn)(FILE *, const json_t *, const json_t *, const json_t *,
						       const json_t *, const json_t *), FILE *f)
{
	size_t i, j, k, l;
	json_t *s, *t, *c, *m;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "metrics"), l, m)
					fn(f, doc, s, t, c, m);
}

static void om_metric(FILE *f, const json_t *doc, const json_t *s, const json_t *t, const json_t *c, const json_t *m)
{
	const json_t *sum = json_object_get(m, "summary"), *h = json_object_get(m, "histogram");
	char name[256], raw[256];

	snprintf(raw, sizeof(raw), "vmbench_%s_%s_%s", json_string_value(json_object_get(s, "name")),
		 json_string_value(json_object_get(t, "name")), json_string_value(json_object_get(m, "name")));
	om_name(raw, name, sizeof(name));
	/* One family per metric; a family repeats for every case, which
	 * OpenMetrics forbids: the metadata is printed for the first case only. */
	if (!json_is_true(json_object_get(m, "_om_seen"))) {
		fprintf(f, "# TYPE %s gauge\n# HELP %s %s, %s is better\n", name, name,
			json_string_value(json_object_get(m, "unit")),
			json_string_value(json_object_get(m, "direction")));
	}
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		const json_t *v = json_object_get(sum, stats[i]);

		if (!json_is_number(v))
			continue;
		fputs(name, f);
		om_labels(f, doc, json_object_get(c, "params"), stats[i]);
		fprintf(f, " %.17g\n", json_number_value(v));
	}
	for (size_t i = 0; h && i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		const json_t *v = json_object_get(json_object_get(h, "percentiles"), pcts[i]);

		if (!json_is_number(v))
			continue;
		fputs(name, f);
		om_labels(f, doc, json_object_get(c, "params"), pcts[i]);
		fprintf(f, " %.17g\n", json_number_value(v));
	}
}

/* OpenMetrics wants each family's samples together: sort families first. */
static int print_openmetrics(FILE *f, json_t *doc)
{
	json_t *families = json_object();
	size_t i, j, k, l;
	json_t *s, *t, *c, *m;
	const char *key;
	json_t *list;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c)
				json_array_foreach(json_object_get(c, "metrics"), l, m) {
		char raw[256];

		snprintf(raw, sizeof(raw), "%s.%s.%s", json_string_value(json_object_get(s, "name")),
			 json_string_value(json_object_get(t, "name")), json_string_value(json_object_get(m, "name")));
		list = json_object_get(families, raw);
		if (!list) {
			list = json_array();
			json_object_set_new(families, raw, list);
		}
		json_array_append_new(list, json_pack("[O, O, O, O]", s, t, c, m));
	}
	json_object_foreach(families, key, list) {
		json_t *e;

		json_array_foreach(list, i, e) {
			json_t *mm = json_deep_copy(json_array_get(e, 3));

			if (i)
				json_object_set_new(mm, "_om_seen", json_true());
			om_metric(f, doc, json_array_get(e, 0), json_array_get(e, 1), json_array_get(e, 2), mm);
			json_decref(mm);
		}
	}
	fputs("# EOF\n", f);
	json_decref(families);
	return 0;
}

static void row_text(FILE *f, const json_t *doc, const json_t *s, const json_t *t, const json_t *c, const json_t *m,
		     bool csv)
{
	const json_t *sum = json_object_get(m, "summary"), *pc = json_object_get(json_object_get(m, "histogram"), "percentiles");
	char *params = json_dumps(json_object_get(c, "params"), JSON_SORT_KEYS | JSON_COMPACT);
	const char *sep = csv ? "," : " | ";

	(void)doc;
	if (csv)
		fprintf(f, "%s,%s,\"", json_string_value(json_object_get(s, "name")), json_string_value(json_object_get(t, "name")));
	else
		fprintf(f, "| %s.%s | `", json_string_value(json_object_get(s, "name")), json_string_value(json_object_get(t, "name")));
	for (const char *p = params ? params : ""; *p; p++) {
		if (csv && *p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fprintf(f, csv ? "\",%s,%s,%s,%lld" : "` | %s | %s | %s | %lld", json_string_value(json_object_get(m, "name")),
		json_string_value(json_object_get(m, "unit")), json_string_value(json_object_get(m, "direction")),
		(long long)json_integer_value(json_object_get(sum, "n")));
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		const json_t *v = json_object_get(sum, stats[i]);

		fputs(sep, f);
		if (json_is_number(v))
			fprintf(f, csv ? "%.17g" : "%.6g", json_number_value(v));
	}
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = json_object_get(pc, pcts[i]);

		fputs(sep, f);
		if (json_is_number(v))
			fprintf(f, csv ? "%.17g" : "%.6g", json_number_value(v));
	}
	fputs(csv ? "\n" : " |\n", f);
	free(params);
}

static void csv_row(FILE *f, const json_t *d, const json_t *s, const json_t *t, const json_t *c, const json_t *m)
{
	row_text(f, d, s, t, c, m, true);
}

static void md_row(FILE *f, const json_t *d, const json_t *s, const json_t *t, const json_t *c, const json_t *m)
{
	row_text(f, d, s, t, c, m, false);
}

int cmd_export(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	json_t *docs = NULL, *doc;
	const char *fmt;
	char name[256];
	int ret;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret >= 0)
		goto out;
	ret = cmd_load_operand(self, pos.v[0], optset_str(&own, "db"), &db, &docs, name, sizeof(name));
	if (ret >= 0)
		goto out;
	if (json_array_size(docs) != 1) {
		ret = cmd_usage_error(self, "'%s' selects %zu runs; export takes one (a run number, id or file)", pos.v[0],
				      json_array_size(docs));
		goto out;
	}
	doc = json_array_get(docs, 0);
	fmt = optset_str(&own, "format");
	ret = EXIT_OK;
	if (!strcmp(fmt, "json")) {
		ret = doc_write_file(doc, "-") < 0 ? EXIT_FAILED : EXIT_OK;
	} else if (!strcmp(fmt, "openmetrics")) {
		print_openmetrics(stdout, doc);
	} else if (!strcmp(fmt, "csv")) {
		fputs("suite,test,params,metric,unit,direction,n,mean,median,stddev,min,max,ci95_low,ci95_high,p50,p90,p99\n",
		      stdout);
		each_metric(doc, csv_row, stdout);
	} else {
		fputs("| test | params | metric | unit | better | n | mean | median | stddev | min | max | ci95 low | "
		      "ci95 high | p50 | p90 | p99 |\n|---|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", stdout);
		each_metric(doc, md_row, stdout);
	}
	if (ret == EXIT_OK && cmd_stdout_check(true) < 0)
		ret = EXIT_FAILED;
out:
	json_decref(docs);
	db_close(db);
	cmd_release(&own, NULL, &pos);
	return ret;
}
