/* A study experiment's table from its documents (src/lab/study_table.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study_table.h"
#include "matrix.h"
#include "../core/stats.h"
#include "../core/str.h"
#include "../core/banned.h"

/* Whether a case's params have every KEY=VALUE of at (values as text). */
static bool params_match(const json_t *params, const char *at)
{
	char buf[96];

	if (!*at)
		return true;
	snprintf(buf, sizeof(buf), "%s", at);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), text[64];
		const json_t *v;

		*eq = '\0';
		v = json_object_get(params, kv);
		if (json_is_string(v))
			snprintf(text, sizeof(text), "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(text, sizeof(text), "%g", json_real_value(v));
		else if (json_is_boolean(v))
			snprintf(text, sizeof(text), "%s", json_is_true(v) ? "true" : "false");
		else
			return false;
		if (strcmp(text, eq + 1))
			return false;
	}
	return true;
}

/* A document's value of a column: the run's mean of the metric in the
 * case at names; NAN when it has none (*ncases: how many cases matched). */
static double doc_value(const json_t *doc, const struct study_column *c, char *unit, size_t ulen, unsigned *ncases,
			bool *lower)
{
	const char *dot = strchr(c->test, '.');
	double v = NAN;
	size_t i, k, j;
	const json_t *s, *t, *cs, *m;

	*ncases = 0;
	json_array_foreach(json_object_get(doc, "suites"), i, s)
	{
		if (strncmp(json_string_value(json_object_get(s, "name")) ?: "", c->test, (size_t)(dot - c->test)) ||
		    strlen(json_string_value(json_object_get(s, "name")) ?: "") != (size_t)(dot - c->test))
			continue;
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", dot + 1))
				continue;
			json_array_foreach(json_object_get(t, "cases"), j, cs)
			{
				size_t q;

				if (!params_match(json_object_get(cs, "params"), c->at))
					continue;
				json_array_foreach(json_object_get(cs, "metrics"), q, m)
				{
					const json_t *mean = json_object_get(json_object_get(m, "summary"), "mean");

					if (strcmp(json_string_value(json_object_get(m, "name")) ?: "", c->metric))
						continue;
					if (++*ncases == 1 && json_is_number(mean) && isfinite(json_number_value(mean))) {
						v = json_number_value(mean);
						*lower = !strcmp(json_string_value(json_object_get(m, "direction")) ?: "",
								 "lower");
						snprintf(unit, ulen, "%s", json_string_value(json_object_get(m, "unit")) ?: "");
					}
				}
			}
		}
	}
	return v;
}

/* The row a document goes in: its values of the rows keys,
 * e.g. "policy=rt load=80"; else its configuration's name. */
static void row_of(const struct study_experiment *e, const json_t *doc, char *buf, size_t len)
{
	const char *config = json_string_value(json_object_get(doc, "lab_config"));
	char keys[64];
	size_t off = 0;

	if (config && !strcmp(config, "host")) {
		snprintf(buf, len, "host");
		return;
	}
	*buf = '\0';
	snprintf(keys, sizeof(keys), "%s", e->rows);
	for (char *save = NULL, *k = strtok_r(keys, ",", &save); k && off < len; k = strtok_r(NULL, ",", &save)) {
		const char *v = json_string_value(json_object_get(json_object_get(doc, "labels"), k));
		int w;

		if (!v) {
			off = 0;
			break;
		}
		w = snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", k, v);
		off += w > 0 ? (size_t)w : 0;
	}
	if (!off)
		snprintf(buf, len, "%s", config ? config : "?");
}

static unsigned round_of(const json_t *doc)
{
	const json_t *r = json_object_get(json_object_get(doc, "run_group"), "round");

	return json_is_integer(r) && json_integer_value(r) > 0 && json_integer_value(r) <= STUDY_MAX_ROUNDS
		       ? (unsigned)json_integer_value(r)
		       : 1;
}

/* The rounds' values of a cell, in round order: a round's docs averaged. */
static size_t cell_rounds(const struct study_cell *c, double *out)
{
	size_t n = 0;

	for (unsigned r = 1; r <= STUDY_MAX_ROUNDS; r++)
		if (c->cnt[r])
			out[n++] = c->sum[r] / c->cnt[r];
	return n;
}

/* The study's statistic of a cell; NAN when it has no value. */
double study_cell_stat(const struct study_cell *c, enum study_stat st, size_t *nout)
{
	double v[STUDY_MAX_ROUNDS];
	size_t n = cell_rounds(c, v);

	*nout = n;
	return study_statistic(v, n, st);
}

/* Whether a document is one the side of an expectation names. */
static bool side_has(const char *side, const json_t *doc)
{
	const char *config = json_string_value(json_object_get(doc, "lab_config"));
	const json_t *labels = json_object_get(doc, "labels");
	char buf[96];

	if (!strcmp(side, "host"))
		return config && !strcmp(config, "host");
	if (config && !strcmp(config, "host"))
		return false;
	snprintf(buf, sizeof(buf), "%s", side);
	for (char *save = NULL, *kv = strtok_r(buf, ", ", &save); kv; kv = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			return false;
		*eq = '\0';
		if (!json_is_string(json_object_get(labels, kv)) ||
		    strcmp(json_string_value(json_object_get(labels, kv)), eq + 1))
			return false;
	}
	return true;
}

/* The accelerator a document's configuration asked for, from its name
 * ("accel=auto (ran tcg) disk=ide": auto) into buf; false when its name
 * gives none (the matrix gave no accel: auto by default) */
static bool accel_asked(const json_t *doc, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(doc, "lab_config"));
	bool found = false;

	for (const char *p = name ? name : ""; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		if (n > 6 && !strncmp(p, "accel=", 6)) {
			snprintf(buf, len, "%.*s", (int)(n - 6), p + 6);
			found = true;
		}
		p += n;
	}
	return found;
}

/* Whether a document of a side ran under TCG where its configuration asked
 * for KVM or let the lab choose (its label accel is what ran; its
 * configuration's name, what was asked: accel=auto when the matrix gave
 * none). A side emulated on purpose (accel=tcg, Study 1's arm64 guest) is
 * the study's emulation, not a fallback. */
static bool ran_tcg(const json_t *doc)
{
	const char *accel = json_string_value(json_object_get(json_object_get(doc, "labels"), "accel"));
	char asked[16];

	if (!accel || strcmp(accel, "tcg"))
		return false;
	return !accel_asked(doc, asked, sizeof(asked)) || strcmp(asked, "tcg");
}

/* One relation judged on the rounds both sides were measured in, paired:
 * its verdict, what was measured ("1.34x [1.2x, 1.5x]") and, inconclusive,
 * what this run could have told apart. *tcg: a side ran under TCG. */
/* A relation's figures on the rounds both sides were measured in, paired:
 * va[i] side a's, vb[i] side b's; their count. *tcg: a side ran under TCG. */
static size_t rel_pairs(const struct study_experiment *e, const struct study_rel *x, const json_t *docs, double *va,
			double *vb, bool *tcg)
{
	const struct study_column *ca = &e->columns[x->col], *cb = &e->columns[x->col_b];
	struct study_cell *a = calloc(2, sizeof(*a)), *b = a + 1;
	size_t i, n = 0;
	const json_t *doc;

	if (!a)
		return 0;
	json_array_foreach(docs, i, doc)
	{
		char unit[16];
		unsigned nc, r = round_of(doc);
		bool lower = false;
		double v;

		if (side_has(x->a, doc) && isfinite(v = doc_value(doc, ca, unit, sizeof(unit), &nc, &lower))) {
			a->sum[r] += v;
			a->cnt[r]++;
			*tcg |= ran_tcg(doc);
		}
		if (side_has(x->b, doc) && isfinite(v = doc_value(doc, cb, unit, sizeof(unit), &nc, &lower))) {
			b->sum[r] += v;
			b->cnt[r]++;
			*tcg |= ran_tcg(doc);
		}
	}
	for (unsigned r = 1; r <= STUDY_MAX_ROUNDS; r++)
		if (a->cnt[r] && b->cnt[r]) {
			va[n] = a->sum[r] / a->cnt[r];
			vb[n] = b->sum[r] / b->cnt[r];
			n++;
		}
	free(a);
	return n;
}

double study_rel_spread(const struct study_experiment *e, const struct study_rel *x, const json_t *docs, size_t *nout)
{
	double va[STUDY_MAX_ROUNDS], vb[STUDY_MAX_ROUNDS], mean = 0, m2 = 0;
	bool tcg = false;
	size_t n = rel_pairs(e, x, docs, va, vb, &tcg);

	*nout = n;
	if (n < 2 || !stats_all_positive(va, n) || !stats_all_positive(vb, n))
		return NAN;
	for (size_t i = 0; i < n; i++) {
		double d = log(va[i] / vb[i]), delta = d - mean;

		mean += delta / (double)(i + 1);
		m2 += delta * (d - mean);
	}
	return sqrt(m2 / (double)(n - 1));
}

static enum study_verdict judge_rel(const struct study_experiment *e, const struct study_rel *x, const json_t *docs,
				    char *measured, size_t mlen, char *why, size_t wlen, bool *tcg, double *mdd)
{
	double va[STUDY_MAX_ROUNDS], vb[STUDY_MAX_ROUNDS], lo, hi;
	struct stats_runs_cmp cmp = { 0 };
	size_t n = rel_pairs(e, x, docs, va, vb, tcg);

	if (n < 2 || !stats_all_positive(va, n) || !stats_all_positive(vb, n)) {
		snprintf(measured, mlen, "-");
		snprintf(why, wlen, "%zu round%s with a positive figure on both sides; 2 are needed", n, n == 1 ? "" : "s");
		return STUDY_INCONCLUSIVE;
	}
	/* b is the reference: gap and intervals are of a / b */
	stats_compare_paired(&(struct stats_paired_in){ .a = vb, .b = va, .n = n, .higher_better = true,
							.margin_pct = x->op == STUDY_CLOSE ? x->margin_pct : 0 },
			     &cmp);
	lo = 1 + cmp.ci95_low_pct / 100;
	hi = 1 + cmp.ci95_high_pct / 100;
	if (x->op == STUDY_CLOSE)
		snprintf(measured, mlen, "%+.1f%% [%+.1f%%, %+.1f%%] over %zu rounds", cmp.gap_pct, cmp.ci90_low_pct,
			 cmp.ci90_high_pct, n);
	else
		snprintf(measured, mlen, "%.3gx [%.3gx, %.3gx] over %zu rounds", 1 + cmp.gap_pct / 100, lo, hi, n);
	snprintf(why, wlen, "%s p=%.2g; the smallest difference this run could detect: %.0f%%", stats_test_name(cmp.test),
		 cmp.p, cmp.mdd_pct);
	*mdd = cmp.mdd_pct;
	switch (x->op) {
	case STUDY_GT:
	case STUDY_LT:
		if (!cmp.significant)
			return STUDY_INCONCLUSIVE;
		return (cmp.significant > 0) == (x->op == STUDY_GT) ? STUDY_REPRODUCED : STUDY_CONTRADICTED;
	case STUDY_RATIO:
		if (lo >= x->lo && hi <= x->hi)
			return STUDY_REPRODUCED;
		return hi < x->lo || lo > x->hi ? STUDY_CONTRADICTED : STUDY_INCONCLUSIVE;
	case STUDY_CLOSE:
		if (cmp.verdict == STATS_SAME)
			return STUDY_REPRODUCED;
		return cmp.ci95_low_pct > x->margin_pct || cmp.ci95_high_pct < -x->margin_pct ? STUDY_CONTRADICTED
											    : STUDY_INCONCLUSIVE;
	}
	return STUDY_INCONCLUSIVE;
}

/* A document's figure of column c in bit/s (a bit or byte rate), or NAN */
static double doc_bits(const json_t *doc, const struct study_column *c)
{
	char unit[16] = "";
	unsigned nc;
	bool lower;
	double v = doc_value(doc, c, unit, sizeof(unit), &nc, &lower), f = study_unit_factor(unit, "bit/s");

	if (!(f > 0))
		f = 8 * study_unit_factor(unit, "B/s");
	return f > 0 ? v * f : NAN;
}

/* A claim about links (| link): where a side's configuration of one NIC on
 * a shaped link (its labels nics=1 and linkrate) moved, on the rounds'
 * mean, under STUDY_LINK_FILLED of the line rate, the NIC's emulation and
 * the host's CPU bound it, not the link: more links cannot show what
 * they give. true with why (the bound measured), else false. */
static bool link_unfilled(const struct study_experiment *e, const struct study_claim *c, const json_t *docs,
			  char *why, size_t len)
{
	for (unsigned i = 0; i < c->n * 2; i++) {
		const struct study_rel *x = &e->rel[c->first + i / 2];
		const char *side = i % 2 ? x->b : x->a;
		const struct study_column *col = &e->columns[i % 2 ? x->col_b : x->col];
		double sum = 0, rate = 0;
		unsigned cnt = 0;
		size_t k;
		const json_t *doc;

		json_array_foreach(docs, k, doc)
		{
			const json_t *lab = json_object_get(doc, "labels");
			const char *nics = json_string_value(json_object_get(lab, "nics"));
			const char *lr = json_string_value(json_object_get(lab, "linkrate"));
			uint64_t bps;
			double v;

			if (!side_has(side, doc) || !nics || strcmp(nics, "1") || !lr || lab_rate_parse(lr, &bps) < 0 ||
			    !isfinite(v = doc_bits(doc, col)))
				continue;
			sum += v;
			cnt++;
			rate = (double)bps;
		}
		if (cnt && sum / cnt < STUDY_LINK_FILLED * rate) {
			snprintf(why, len, "one NIC (%s) moved %.3g Mbit/s on a link of %.4g Mbit/s: the NIC's emulation and "
				 "the host's CPU bound it here, not the link, so more links cannot show what teaming gives",
				 side, sum / cnt / 1e6, rate / 1e6);
			return true;
		}
	}
	return false;
}

/* A claim: each relation judged; any contradicted contradicts it, all
 * reproduced reproduce it; a claim about hardware virtualization whose
 * sides ran under TCG, or one this lab cannot measure, is not comparable. */
static void judge_claim(struct study_table *res, const json_t *docs, size_t k)
{
	const struct study_experiment *e = res->e;
	const struct study_claim *c = &e->claim[k];
	struct study_claim_result *out = &res->claim[k];
	size_t mo = 0, wo = 0;
	unsigned reproduced = 0, contradicted = 0;
	bool tcg = false;

	memset(out, 0, sizeof(*out));
	if (*c->not_comparable) {
		out->v = STUDY_NOT_COMPARABLE;
		snprintf(out->measured, sizeof(out->measured), "-");
		snprintf(out->why, sizeof(out->why), "%s", c->not_comparable);
		return;
	}
	for (unsigned i = 0; i < c->n; i++) {
		char m[96], w[160];
		double mdd = INFINITY;
		enum study_verdict v = judge_rel(e, &e->rel[c->first + i], docs, m, sizeof(m), w, sizeof(w), &tcg, &mdd);

		if (!(mdd <= out->mdd_pct))
			out->mdd_pct = mdd;

		reproduced += v == STUDY_REPRODUCED;
		contradicted += v == STUDY_CONTRADICTED;
		str_appendf(out->measured, sizeof(out->measured), &mo, "%s%s", i ? "; " : "", m);
		if (v == STUDY_INCONCLUSIVE)
			str_appendf(out->why, sizeof(out->why), &wo, "%s%s", wo ? "; " : "", w);
	}
	if (c->kvm && tcg) {
		out->v = STUDY_NOT_COMPARABLE;
		snprintf(out->why, sizeof(out->why), "ran under TCG: the claim is about hardware virtualization");
		return;
	}
	if (c->link && link_unfilled(e, c, docs, out->why, sizeof(out->why))) {
		out->v = STUDY_NOT_COMPARABLE;
		return;
	}
	out->v = contradicted ? STUDY_CONTRADICTED : reproduced == c->n ? STUDY_REPRODUCED : STUDY_INCONCLUSIVE;
	if (out->v != STUDY_INCONCLUSIVE)
		out->why[0] = '\0';
}

/* Each row's cells against the baseline's (--baseline: the host, a
 * configuration, or with none the first row), paired by round, in the
 * metric's direction: the verdicts compare would give. */
static void against_baseline(struct study_table *res, const json_t *docs)
{
	const struct study_experiment *e = res->e;
	const char *base = e->baseline;
	char first[96] = "";
	size_t i;
	const json_t *doc;

	/* lab contend's cells have no baseline but the one the study names */
	if (e->contend && !strcmp(base, "none"))
		return;
	if (!strcmp(base, "none")) {
		if (!res->nrows)
			return;
		snprintf(first, sizeof(first), "%s", res->rows[0].name);
	}
	for (size_t c = 0; c < e->ncolumns; c++) {
		struct study_cell b = { 0 };

		if (e->columns[c].setting) /* shown, never compared */
			continue;
		json_array_foreach(docs, i, doc)
		{
			char unit[16], row[96];
			unsigned nc, rd = round_of(doc);
			bool lower = false;
			double v = doc_value(doc, &e->columns[c], unit, sizeof(unit), &nc, &lower);

			row_of(e, doc, row, sizeof(row));
			if (!isfinite(v) || (*first ? strcmp(row, first) : !side_has(base, doc)))
				continue;
			b.sum[rd] += v;
			b.cnt[rd]++;
		}
		for (size_t r = 0; r < res->nrows; r++) {
			struct study_cell *cell = &res->rows[r].cell[c];
			double va[STUDY_MAX_ROUNDS], vb[STUDY_MAX_ROUNDS];
			struct stats_runs_cmp cmp = { 0 };
			size_t n = 0, off;
			bool same = true;

			for (unsigned rd = 1; rd <= STUDY_MAX_ROUNDS; rd++) {
				if (!b.cnt[rd] || !cell->cnt[rd])
					continue;
				va[n] = b.sum[rd] / b.cnt[rd];
				vb[n] = cell->sum[rd] / cell->cnt[rd];
				same &= va[n] == vb[n] && b.cnt[rd] == cell->cnt[rd];
				n++;
			}
			if (!n || same) /* the baseline's own row */
				continue;
			if (n < 2 || !stats_all_positive(va, n) || !stats_all_positive(vb, n)) {
				snprintf(cell->vs, sizeof(cell->vs), "not judged: %zu paired round%s", n, n == 1 ? "" : "s");
				continue;
			}
			stats_compare_paired(&(struct stats_paired_in){ .a = va, .b = vb, .n = n, .higher_better = !cell->lower },
					     &cmp);
			/* with the smallest difference its rounds could detect, as each claim says it */
			off = 0;
			str_appendf(cell->vs, sizeof(cell->vs), &off, "%.3gx, %s, p=%.2g, mdd ", 1 + cmp.gap_pct / 100,
				    cmp.significant > 0 ? "better" : cmp.significant < 0 ? "worse" : "no significant difference",
				    cmp.p);
			if (isfinite(cmp.mdd_pct))
				str_appendf(cell->vs, sizeof(cell->vs), &off, "%.0f%%", cmp.mdd_pct);
			else
				str_appendf(cell->vs, sizeof(cell->vs), &off, "unknown (too few rounds)");
		}
	}
}

/* Where a document's row goes: the host first, then the matrix's order of
 * its configuration (found by the matrix keys every lab document carries as
 * labels), so that the table reads as the study's does, whatever order
 * the rounds were shuffled into, and "the first" with --baseline none is
 * the matrix's first, as lab run's. */
static size_t rank_of(const struct lab_matrix *m, const json_t *doc)
{
	const char *config = json_string_value(json_object_get(doc, "lab_config"));
	const json_t *labels = json_object_get(doc, "labels");
	char asked[16];

	if (config && !strcmp(config, "host"))
		return 0;
	/* the label accel is what ran (accel=auto resolved, or a study's
	 * accel = kvm fallen back to TCG); the matrix holds what was asked,
	 * which the configuration's name keeps */
	if (!accel_asked(doc, asked, sizeof(asked)))
		snprintf(asked, sizeof(asked), "%s", json_string_value(json_object_get(labels, "accel")) ?: "");
	for (size_t i = 0; i < m->n; i++) {
		size_t k;

		for (k = 0; k < lab_nkeys; k++) {
			const char *v = k == LAB_ACCEL ? asked
						       : json_string_value(json_object_get(labels, lab_key_name((enum lab_key)k)));

			if ((m->given & (1u << k)) && (!v || strcmp(v, m->configs[i].v[k])))
				break;
		}
		if (k == lab_nkeys)
			return i + 1;
	}
	return m->n + 1;
}

/* A contend row's place among the others: by each of its rows keys in
 * turn, the value's place in the option of that name (--policy fair,rt:
 * fair first), or the value itself when no option lists it (guest=2),
 * so that the rows read in the order the study gave, not the shuffled
 * order of the cells. */
static size_t order_of(const struct study_experiment *e, const json_t *doc)
{
	const json_t *labels = json_object_get(doc, "labels");
	char keys[64];
	size_t order = 0;

	snprintf(keys, sizeof(keys), "%s", e->rows);
	for (char *save = NULL, *k = strtok_r(keys, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		const char *v = json_string_value(json_object_get(labels, k)), *list;
		char opt[80];
		size_t pos = 0, n = v ? strlen(v) : 0;

		snprintf(opt, sizeof(opt), "--%s", k);
		list = study_option_value(e, opt);
		if (v && list) {
			const char *p = list;

			while (*p && !(strcspn(p, ",") == n && !strncmp(p, v, n))) {
				p += strcspn(p, ",");
				p += *p == ',';
				pos++;
			}
		} else if (v) {
			pos = strtoul(v, NULL, 10);
		}
		order = order * 256 + (pos < 255 ? pos : 255);
	}
	return order;
}

static int row_cmp(const void *a, const void *b)
{
	const struct study_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* What accelerator a document ran under, counted in its row; a failure's
 * marker measured nothing and counts for none. */
static void row_accel(struct study_row *row, const json_t *doc)
{
	const char *accel = json_string_value(json_object_get(json_object_get(doc, "labels"), "accel"));
	const char *note = json_string_value(json_object_get(doc, "lab_note"));

	const char *config = json_string_value(json_object_get(doc, "lab_config"));

	if (!accel || json_object_get(doc, "lab_failure") || (config && !strcmp(config, "host")))
		return;
	if (!strcmp(accel, "kvm"))
		row->nkvm++;
	else if (!strcmp(accel, "tcg"))
		row->ntcg++;
	else
		return;
	/* lab run's notes on the accelerator begin with the accel it was asked */
	if (!strcmp(accel, "tcg") && note && !strncmp(note, "accel=", 6) && !*row->accel_note)
		snprintf(row->accel_note, sizeof(row->accel_note), "%s", note);
}

const char *study_row_accel(const struct study_table *t, size_t row)
{
	const struct study_row *r;

	if (row >= t->nrows)
		return NULL;
	r = &t->rows[row];
	return r->nkvm && r->ntcg ? "mixed" : r->nkvm ? "kvm" : r->ntcg ? "tcg" : NULL;
}

int study_tabulate(const struct study_experiment *e, const json_t *all, struct study_table *t)
{
	struct study_table *res = t;
	struct lab_matrix m = { 0 };
	json_t *docs = json_array();
	char err[512];
	const json_t *doc;
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->e = e;
	if (!docs)
		return -ENOMEM;
	/* select: the documents of the guests it names (lab contend's labels) */
	json_array_foreach(all, i, doc)
		if ((!*e->select || side_has(e->select, doc)) && json_array_append(docs, (json_t *)doc) < 0) {
			json_decref(docs);
			return -ENOMEM;
		}
	ret = lab_matrix_parse(e->matrix, &m, err, sizeof(err));
	if (ret < 0) {
		json_decref(docs);
		return ret;
	}
	json_array_foreach(docs, i, doc)
	{
		char row[96];
		size_t r;

		row_of(e, doc, row, sizeof(row));
		for (r = 0; r < res->nrows && strcmp(res->rows[r].name, row); r++)
			;
		if (r == res->nrows) {
			if (res->nrows == STUDY_MAX_ROWS)
				continue;
			res->rows[res->nrows].rank = SIZE_MAX;
			res->rows[res->nrows].order = e->contend ? order_of(e, doc) : 0;
			snprintf(res->rows[res->nrows++].name, sizeof(res->rows[0].name), "%s", row);
		}
		if (rank_of(&m, doc) < res->rows[r].rank)
			res->rows[r].rank = rank_of(&m, doc);
		row_accel(&res->rows[r], doc);
		for (size_t c = 0; c < e->ncolumns; c++) {
			struct study_cell *cell = &res->rows[r].cell[c];
			unsigned nc, rd = round_of(doc);
			double v = doc_value(doc, &e->columns[c], cell->unit, sizeof(cell->unit), &nc, &cell->lower);

			cell->ambiguous |= nc > 1;
			if (isfinite(v)) {
				cell->sum[rd] += v;
				cell->cnt[rd]++;
			}
		}
	}
	lab_matrix_release(&m);
	if (res->nrows > 1)
		qsort(res->rows, res->nrows, sizeof(res->rows[0]), row_cmp);
	against_baseline(res, docs);
	for (size_t k = 0; k < e->nclaims; k++)
		judge_claim(res, docs, k);
	json_decref(docs);
	return 0;
}

bool study_column_empty(const struct study_table *t, size_t c)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (unsigned k = 0; k <= STUDY_MAX_ROUNDS; k++)
			if (t->rows[r].cell[c].cnt[k])
				return false;
	return true;
}
