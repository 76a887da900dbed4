/* vmbench lab: a session's comparison: the baseline chosen, the operands
 * arranged and compared, the table and the HTML report (run, contend, report). */
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
#include "../lab/balloon.h"
#include "../lab/distro.h"
#include "../guest/fs.h"
#include "../lab/workdir.h"
#include "../lab/evidence.h"
#include "../lab/image.h"
#include "../lab/labrun.h"
#include "../lab/hv.h"
#include "../lab/matrix.h"
#include "../lab/contend.h"
#include "../lab/proto_host.h"
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


/* --baseline KEY=VALUE[,KEY=VALUE]: its pairs, each key a matrix key.
 * CMD_CONTINUE, or exit 2 after the message. */
int lab_baseline_pairs(const struct vmb_cmd *self, const char *spec, struct strv *pairs)
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
bool lab_labels_match(const struct strv *pairs, const json_t *labels)
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
int lab_baseline_config(const struct vmb_cmd *self, struct lab *l, const struct lab_matrix *m, const char *spec)
{
	char names[1024], name[256], why[512];
	size_t off = 0, hits = 0, hit = 0;
	int ret = lab_baseline_pairs(self, spec, &l->base_pairs);

	if (ret != CMD_CONTINUE)
		return ret;
	for (size_t i = 0; i < m->n; i++) {
		lab_config_name(m, &m->configs[i], name, sizeof(name));
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
	lab_config_name(m, &m->configs[hit], l->base, sizeof(l->base));
	if (!l->check_only && lab_hv_config_unsupported(&m->configs[hit], why, sizeof(why)))
		return cmd_usage_error(self, "--baseline %s: %s cannot run here: %s", spec, l->base, why);
	return CMD_CONTINUE;
}

/* The operands in the order the comparison shows them: the baseline first
 * (base: an operand's name, or NULL for the first configuration), the
 * other configurations in their order, the host last; the host is aside
 * (beside them, setting no chart's scale) even when it is the baseline. */
void lab_arrange(struct cmp_table *t, const char *base)
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
const char *lab_pick(const struct cmp_table *t, const char *spec, const char *config)
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
const char *lab_lead_suite(const struct cmp_table *t, const struct strv *base_pairs)
{
	for (size_t i = 0; i < base_pairs->n; i++) {
		char key[64];
		int k;

		snprintf(key, sizeof(key), "%.*s", (int)strcspn(base_pairs->v[i], "="), base_pairs->v[i]);
		k = lab_key_find(key);
		if (k >= 0 && lab_key_suite((enum lab_key)k))
			return lab_key_suite((enum lab_key)k);
	}
	for (int k = 0; k < (int)lab_nkeys; k++) {
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
void lab_print_host_cost(FILE *f, const struct cmp_table *t)
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
int lab_show(const struct cmp_table *t, const char *out, bool html)
{
	struct cmp_filter flt = { .all = false };
	char lead[1024];

	if (!out || strcmp(out, "-")) {
		if (cmp_lead_sentence(t, lead, sizeof(lead)))
			printf("%s\n", lead);
		cmp_print(stdout, t, &flt, CMP_TEXT, false);
		lab_print_host_cost(stdout, t);
	}
	if (!html)
		return EXIT_OK;
	return cmd_write_html(t, "vmbench lab", out, "vmbench-lab") < 0 ? EXIT_FAILED : EXIT_OK;
}

/* The operands of a run in the matrix's order (rounds shuffle the order in
 * which they ran, and so were added): insertion by the rank of their
 * names, the host after every configuration. */
void lab_matrix_order(struct cmp_table *t, const struct lab_matrix *m)
{
	size_t *rank = calloc(t->nops ? t->nops : 1, sizeof(*rank));

	if (!rank)
		return; /* the order they ran in: still every operand */
	for (size_t o = 0; o < t->nops; o++) {
		char asked[256];

		rank[o] = m->n;
		lab_name_asked(t->ops[o].name, asked, sizeof(asked));
		for (size_t i = 0; i < m->n; i++) {
			char name[256];

			lab_config_name(m, &m->configs[i], name, sizeof(name));
			if (!strcmp(name, asked))
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
int lab_compare(struct cmp_table *t, const char *spec, const char *config, const struct strv *base_pairs)
{
	lab_arrange(t, lab_pick(t, spec, config));
	t->origin = CMP_FROM_LAB;
	if (cmp_build(t) < 0)
		return log_errno(-ENOMEM, "building the comparison");
	t->lead_suite = lab_lead_suite(t, base_pairs);
	return 0;
}
