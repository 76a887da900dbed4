/* vmbench results: stored runs, one line each, as a table, JSON or CSV. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../lab/matrix.h"
#include "../report/compare.h"
#include "../store/db.h"
#include "../core/banned.h"

const struct vmb_opt results_opts[] = {
	{ .name = "label", .type = OPT_KV, .metavar = "KEY=VALUE",
	  .help = "only runs with this label; given several times, runs with all of them" },
	{ .name = "format", .type = OPT_STRING, .def = "text", .choices = "text|json|csv", .metavar = "FMT",
	  .help = "output format: an aligned table, a JSON array of runs, or CSV" },
	{ .name = "wide", .type = OPT_BOOL,
	  .help = "every label in the table, also a lab run's matrix keys at their defaults (CSV and JSON always have "
		  "every label)" },
	{ .name = "db", .type = OPT_STRING, .metavar = "PATH", .help = "the result store" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_results(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_results_desc = {
	.name = "results",
	.fn = cmd_results,
	.args = "[--label KEY=VALUE]... [--format text|json|csv] [--wide]",
	.summary = "list stored runs, one line each",
	.opts = results_opts,
	.max_args = 0,
};

/* The columns, in order: the table's heading, the CSV's and JSON's key. */
enum col { COL_RUN, COL_ID, COL_STARTED, COL_HOST, COL_HYPERVISOR, COL_LABELS, COL_SUITES, COL_STATUS, NCOLS };
static const struct {
	const char *head, *key;
} cols[NCOLS] = {
	[COL_RUN] = { "RUN", "run" },
	[COL_ID] = { "ID", "id" },
	[COL_STARTED] = { "STARTED", "started" },
	[COL_HOST] = { "HOST", "host" },
	[COL_HYPERVISOR] = { "HYPERVISOR", "hypervisor" },
	[COL_LABELS] = { "LABELS", "labels" },
	[COL_SUITES] = { "SUITES", "suites" },
	[COL_STATUS] = { "STATUS", "status" },
};
/* The table shows the columns before STATUS and marks an interrupted run in SUITES. */
#define TABLE_COLS COL_STATUS

/* Every matching run, as the JSON output has it. */
static int collect_row(const struct db_row *row, void *arg)
{
	json_t *rows = arg, *labels = NULL, *suites = json_array(), *o;
	const char *p = row->suites ? row->suites : "";

	if (row->labels_json)
		labels = json_loads(row->labels_json, 0, NULL);
	if (!labels)
		labels = json_object();
	while (suites && *p) {
		size_t n = strcspn(p, ","), i;
		json_t *have;
		bool seen = false;

		/* a lab run lists a suite per item (disk in the guest, disk from
		 * the host): each suite once */
		json_array_foreach(suites, i, have)
			seen = seen || (json_string_length(have) == n && !memcmp(json_string_value(have), p, n));
		if (seen) {
			p += n + (p[n] == ',');
			continue;
		}
		if (json_array_append_new(suites, json_stringn(p, n)) < 0) {
			json_decref(suites);
			json_decref(labels);
			return -ENOMEM;
		}
		p += n + (p[n] == ',');
	}
	/* a run whose document cannot be read is listed, marked, so that it
	 * can be found (and deleted): it is not a reason to hide the others */
	if (row->unreadable)
		log_warn("run %lld: stored document is unreadable (not JSON); 'vmbench show %lld' says more",
			 (long long)row->id, (long long)row->id);
	o = json_pack("{s:I, s:s, s:s?, s:s?, s:s?, s:o, s:o, s:s}", "run", (json_int_t)row->id, "id",
		      row->uuid ? row->uuid : "", "started", row->started, "host", row->host && *row->host ? row->host : NULL,
		      "hypervisor", row->hypervisor && *row->hypervisor ? row->hypervisor : NULL, "labels", labels,
		      "suites", suites, "status", row->unreadable ? "unreadable" : row->lab_failure ? "lab failure" : row->interrupted ? "interrupted" : "complete");
	if (!o || json_array_append_new(rows, o) < 0)
		return -ENOMEM;
	return 0;
}

/* Whether a label's value only repeats other labels of the run, as the
 * lab once stored config="accel=tcg disk=ide" beside accel=tcg and
 * disk=ide: the table shows such a configuration once. */
static bool label_repeats(const json_t *labels, const char *value)
{
	size_t words = 0;

	for (const char *p = value; *p;) {
		size_t n = strcspn(p, " ");
		const char *eq = memchr(p, '=', n);
		char key[128];
		const char *have;

		if (n) {
			if (!eq || (size_t)(eq - p) >= sizeof(key))
				return false;
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			have = json_string_value(json_object_get(labels, key));
			if (!have || strlen(have) != n - (size_t)(eq - p) - 1 || memcmp(have, eq + 1, strlen(have)))
				return false;
			words++;
		}
		p += n + (p[n] == ' ');
	}
	return words > 0;
}

/* What the table leaves out of LABELS: a lab run's matrix keys at their
 * defaults (24 keys, most of them at it, made lines of 400 characters),
 * but never a key whose value differs between the runs listed (disk=ide
 * beside disk=virtio-blk, the default, says which is which). */
struct label_view {
	bool wide;
	json_t *varies; /* key -> the first value seen, or null once it varies */
	size_t hidden;  /* labels left out */
};

static bool lab_run(const json_t *labels)
{
	return json_object_get(labels, "lab") || json_object_get(labels, "config");
}

static int label_view_init(struct label_view *lv, const json_t *rows, bool wide)
{
	const json_t *run;
	size_t i;

	*lv = (struct label_view){ .wide = wide, .varies = json_object() };
	if (!lv->varies)
		return -ENOMEM;
	json_array_foreach(rows, i, run) {
		const json_t *labels = json_object_get(run, "labels"), *x, *seen;
		const char *k;

		if (!lab_run(labels))
			continue;
		json_object_foreach((json_t *)labels, k, x) {
			seen = json_object_get(lv->varies, k);
			if (!seen && json_object_set(lv->varies, k, (json_t *)x) < 0)
				return -ENOMEM;
			if (seen && !json_is_null(seen) && !json_equal((json_t *)seen, (json_t *)x) &&
			    json_object_set_new(lv->varies, k, json_null()) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static bool label_hidden(struct label_view *lv, const json_t *labels, const char *k, const char *v)
{
	int key = lab_key_find(k);
	const char *def;

	if (!lv || lv->wide || key < 0 || !lab_run(labels))
		return false;
	def = lab_key_default((enum lab_key)key);
	if (!def || strcmp(def, v) || json_is_null(json_object_get(lv->varies, k)))
		return false;
	lv->hidden++;
	return true;
}

/* One cell as text: the table shortens the id to 8 characters and shows
 * a missing value as "-"; CSV leaves it empty. */
static char *cell(const json_t *run, enum col c, bool table, struct label_view *lv)
{
	const json_t *v = json_object_get(run, cols[c].key);
	const char *k;
	json_t *x;
	size_t i;
	char *s = NULL, *t;

	switch (c) {
	case COL_RUN:
		return xasprintf("%lld", (long long)json_integer_value(v));
	case COL_ID:
		return table ? xasprintf("%.8s", json_string_value(v)) : xstrdup(json_string_value(v));
	case COL_LABELS:
		json_object_foreach((json_t *)v, k, x) {
			if (table && (label_repeats(v, json_string_value(x)) || label_hidden(lv, v, k, json_string_value(x))))
				continue;
			t = xasprintf("%s%s%s=%s", s ? s : "", s ? " " : "", k, json_string_value(x));
			free(s);
			if (!(s = t))
				return NULL;
		}
		break;
	case COL_SUITES:
		json_array_foreach(v, i, x) {
			t = xasprintf("%s%s%s", s ? s : "", s ? "," : "", json_string_value(x));
			free(s);
			if (!(s = t))
				return NULL;
		}
		/* the table marks a run stopped by Ctrl-C or unreadable; JSON and CSV have its status */
		if (table && strcmp(json_string_value(json_object_get(run, "status")), "complete")) {
			t = xasprintf("%s%s(%s)", s ? s : "", s ? " " : "", json_string_value(json_object_get(run, "status")));
			free(s);
			s = t;
		}
		break;
	default:
		if (json_is_string(v))
			return xstrdup(json_string_value(v));
		break;
	}
	return s ? s : xstrdup(table ? "-" : "");
}

static int print_csv(const json_t *rows)
{
	const json_t *run;
	size_t i;

	for (int c = 0; c < NCOLS; c++)
		printf("%s%s", c ? "," : "", cols[c].key);
	putchar('\n');
	json_array_foreach(rows, i, run) {
		for (int c = 0; c < NCOLS; c++) {
			char *s = cell(run, (enum col)c, false, NULL);

			if (!s)
				return -ENOMEM;
			if (c)
				putchar(',');
			if (c == COL_RUN)
				fputs(s, stdout);
			else
				cmp_csv_field(stdout, s);
			free(s);
		}
		putchar('\n');
		if (cmd_stdout_check(false) < 0)
			return -EIO;
	}
	return 0;
}

/* Each column as wide as its widest cell, two spaces between columns, the
 * last one not padded: no value runs into the next one. */
static int print_table(const json_t *rows, bool wide)
{
	size_t n = json_array_size(rows), w[TABLE_COLS];
	char **cells = calloc((n + 1) * TABLE_COLS, sizeof(*cells));
	struct label_view lv;
	int r = label_view_init(&lv, rows, wide);

	if (!cells || r < 0) {
		r = -ENOMEM;
		goto out;
	}
	for (int c = 0; c < TABLE_COLS; c++) {
		cells[c] = xstrdup(cols[c].head);
		for (size_t i = 0; i < n; i++)
			cells[(i + 1) * TABLE_COLS + c] = cell(json_array_get(rows, i), (enum col)c, true, &lv);
	}
	for (size_t i = 0; i < (n + 1) * TABLE_COLS; i++)
		if (!cells[i]) {
			r = -ENOMEM;
			goto out;
		}
	for (int c = 0; c < TABLE_COLS; c++) {
		w[c] = 0;
		for (size_t i = 0; i <= n; i++) {
			size_t cw = cmd_text_width(cells[i * TABLE_COLS + c]);

			w[c] = cw > w[c] ? cw : w[c];
		}
	}
	for (size_t i = 0; i <= n && r == 0; i++) {
		for (int c = 0; c < TABLE_COLS; c++) {
			const char *s = cells[i * TABLE_COLS + c];

			fputs(s, stdout);
			if (c + 1 < TABLE_COLS)
				printf("%*s", (int)(w[c] - cmd_text_width(s) + 2), "");
		}
		putchar('\n');
		r = cmd_stdout_check(false);
	}
	if (r == 0 && lv.hidden)
		printf("(lab matrix keys at their defaults not shown; --wide shows every label)\n");
out:
	for (size_t i = 0; cells && i < (n + 1) * TABLE_COLS; i++)
		free(cells[i]);
	free(cells);
	json_decref(lv.varies);
	return r;
}

static int cmd_results(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct db *db = NULL;
	json_t *rows = json_array();
	const char *fmt;
	char path[4096];
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	fmt = optset_str(&own, "format");
	if (db_default_path(optset_str(&own, "db"), path, sizeof(path)) < 0) {
		ret = cmd_usage_error(self, "no result store: set --db, VMBENCH_DB or HOME");
		goto out;
	}
	r = db_open(path, false, &db);
	if (r == -ENOENT && !strcmp(fmt, "text")) {
		printf("no results stored yet in %s; 'vmbench run' stores one\n", path);
		ret = EXIT_OK;
		goto out;
	}
	if (r < 0 && r != -ENOENT) {
		ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	/* no store yet is no runs: JSON and CSV stay machine-readable */
	r = !rows ? -ENOMEM : db ? db_list(db, &optset_get(&own, "label")->kv, collect_row, rows) : 0;
	if (r == 0 && !strcmp(fmt, "json")) {
		if (json_dumpf(rows, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF)
			r = cmd_stdout_check(true) < 0 ? -EIO : log_errno(-EIO, "writing the runs as JSON");
	} else if (r == 0 && !strcmp(fmt, "csv"))
		r = print_csv(rows);
	else if (r == 0)
		r = print_table(rows, optset_bool(&own, "wide"));
	if (r == -ENOMEM)
		log_error("out of memory listing the runs");
	ret = r < 0 ? EXIT_FAILED : EXIT_OK;
	/* every run is listed; a store holding one that cannot be read has
	 * failed to give it back: exit 1, as show and compare do for it */
	if (ret == EXIT_OK) {
		size_t i, bad = 0;
		json_t *row;

		json_array_foreach(rows, i, row)
			bad += !strcmp(json_string_value(json_object_get(row, "status")), "unreadable");
		if (bad) {
			log_error("%zu stored run%s unreadable", bad, bad == 1 ? " is" : "s are");
			ret = EXIT_FAILED;
		}
	}
out:
	json_decref(rows);
	db_close(db);
	cmd_release(&own, NULL, &pos);
	return ret;
}
