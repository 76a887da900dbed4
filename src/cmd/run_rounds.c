/* Interleaved rounds (run --runs N|auto): the selection's tests shuffled
 * per round from the seed, each round measured and folded into one result;
 * for --runs auto, the minimal detectable difference that stops the rounds,
 * the rounds a stored calibration predicts, and the rounds' figures
 * together. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_rounds.h"
#include "../core/run_opts.h"
#include "../core/log.h"
#include "../report/compare.h"
#include "../report/text.h"
#include "../store/calib.h"
#include "../store/db.h"
#include "../suites/suites.h"
#include "../core/str.h"
#include "../core/banned.h"

/* splitmix64: a small, well-mixed generator; the seed alone fixes the order. */
static uint64_t round_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Fisher-Yates over the units, from the generator's state. */
void run_shuffle(struct round_unit *u, size_t n, uint64_t *rng)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(round_next(rng) % i);
		struct round_unit x = u[i - 1];

		u[i - 1] = u[j];
		u[j] = x;
	}
}

/* Every selected test of every item, in table order. */
size_t run_round_units(const struct runner_item *items, size_t nitems, struct round_unit *u, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < nitems; i++)
		for (unsigned t = 0; items[i].suite->tests[t].name && t < 64; t++)
			if ((items[i].test_mask >> t & 1) && n < cap)
				u[n++] = (struct round_unit){ .item = i, .test = t };
	return n;
}

/* Move part's suites into res: a suite already there gets part's tests. */
static int results_merge(struct vmb_results *res, struct vmb_results *part)
{
	for (size_t s = 0; s < part->nsuites; s++) {
		struct vmb_suite_result *ps = &part->suites[s], *rs = NULL;

		for (size_t k = 0; k < res->nsuites; k++)
			if (!strcmp(res->suites[k].name, ps->name))
				rs = &res->suites[k];
		if (!rs) {
			struct vmb_suite_result *n = realloc(res->suites, (res->nsuites + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			res->suites = n;
			n[res->nsuites++] = *ps;
			memset(ps, 0, sizeof(*ps));
			continue;
		}
		{
			struct vmb_test_result *n = realloc(rs->tests, (rs->ntests + ps->ntests) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			rs->tests = n;
			memcpy(n + rs->ntests, ps->tests, ps->ntests * sizeof(*n));
			rs->ntests += ps->ntests;
			ps->ntests = 0;
			if (ps->status > rs->status)
				rs->status = ps->status; /* failed or interrupted wins */
		}
	}
	vmb_results_release(part);
	return 0;
}

/* One round: the units in their shuffled order, each its own runner call,
 * folded into one result. The order goes into order (JSON array). */
int run_round(const struct runner_settings *rs, const struct runner_item *items, const struct round_unit *u,
	      size_t nu, struct vmb_results *out, json_t *order)
{
	int r = 0;

	for (size_t i = 0; i < nu && r == 0; i++) {
		struct runner_item one = items[u[i].item];
		struct vmb_results part = { 0 };
		char name[128];

		one.test_mask = 1ull << u[i].test;
		snprintf(name, sizeof(name), "%s.%s", one.suite->name, one.suite->tests[u[i].test].name);
		if (json_array_append_new(order, json_string(name)) < 0)
			return -ENOMEM;
		r = runner_run(rs, &one, 1, &part);
		if (results_merge(out, &part) < 0) {
			vmb_results_release(&part);
			return -ENOMEM;
		}
	}
	return r;
}

double round_alpha(unsigned look)
{
	double j = look ? (double)look : 1;

	return 0.05 * 6 / (M_PI * M_PI) / (j * j);
}

enum round_state round_decide(const struct round_rule *rule, const struct round_case *c)
{
	if (c->judged && c->significant && c->p <= round_alpha(rule->look))
		return ROUND_DIFFERENT;
	if (c->judged && rule->margin && c->same)
		return ROUND_SAME;
	if (c->mdd_pct <= rule->mdd_pct)
		return ROUND_MDD;
	return ROUND_OPEN;
}

/* the open cases named, the largest mdd (the furthest from its target) first */
static int open_cmp(const void *a, const void *b)
{
	const struct round_case *x = *(const struct round_case *const *)a, *y = *(const struct round_case *const *)b;
	double mx = isnan(x->mdd_pct) ? INFINITY : x->mdd_pct, my = isnan(y->mdd_pct) ? INFINITY : y->mdd_pct;

	return (mx < my) - (mx > my);
}

void round_tally(const struct round_rule *rule, const struct round_case *c, size_t n, struct round_tally *out)
{
	const struct round_case **open = n ? calloc(n, sizeof(*open)) : NULL;
	size_t off = 0, named = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	for (size_t i = 0; i < n; i++)
		switch (round_decide(rule, &c[i])) {
		case ROUND_DIFFERENT: out->different++; break;
		case ROUND_SAME: out->same++; break;
		case ROUND_MDD: out->mdd++; break;
		case ROUND_OPEN:
			if (open)
				open[named++] = &c[i];
			out->open++;
			break;
		}
	if (!open)
		return; /* counted, not named: out of memory (or nothing to name) */
	qsort(open, named, sizeof(*open), open_cmp);
	for (size_t i = 0; i < named && i < 3; i++) {
		char mdd[32];

		if (isfinite(open[i]->mdd_pct))
			snprintf(mdd, sizeof(mdd), "%.1f%%", open[i]->mdd_pct);
		else
			snprintf(mdd, sizeof(mdd), "unknown");
		str_appendf(out->open_names, sizeof(out->open_names), &off, "%s%s (minimal detectable difference %s",
			    i ? "; " : "", open[i]->name, mdd);
		if (open[i]->judged && isfinite(open[i]->p))
			str_appendf(out->open_names, sizeof(out->open_names), &off, ", p=%.2g", open[i]->p);
		str_appendf(out->open_names, sizeof(out->open_names), &off, ")");
	}
	if (out->open > 3)
		str_appendf(out->open_names, sizeof(out->open_names), &off, "; and %zu more", out->open - 3);
	free(open);
}

void round_tally_words(const struct round_rule *rule, const struct round_tally *t, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (t->different)
		str_appendf(buf, len, &off, "%zu significant difference%s", t->different, t->different == 1 ? "" : "s");
	if (t->same)
		str_appendf(buf, len, &off, "%s%zu the same within --margin", off ? ", " : "", t->same);
	if (t->mdd)
		str_appendf(buf, len, &off, "%s%zu with a minimal detectable difference within --mdd %g%%", off ? ", " : "",
			    t->mdd, rule->mdd_pct);
}

bool round_auto_after(struct round_auto *a, unsigned k, const struct round_case *c, size_t n, char *line,
		      size_t len)
{
	struct round_tally t;
	char words[300];

	line[0] = '\0';
	if (k < 2 || !n)
		return false;
	a->rule.look = ++a->looks;
	round_tally(&a->rule, c, n, &t);
	round_tally_words(&a->rule, &t, words, sizeof(words));
	if (!t.open) {
		if (*a->held)
			snprintf(line, len, "%s: stopped after %u rounds: every case is decided (%s); the last undecided, "
				 "after round %u: %s", a->what, k, words, k - 1, a->held);
		else
			snprintf(line, len, "%s: stopped after %u rounds: every case is decided (%s)", a->what, k, words);
		return true;
	}
	snprintf(line, len, "round %u: %zu of %zu case%s decided%s%s%s; undecided: %s", k, t.n - t.open, t.n,
		 t.n == 1 ? "" : "s", *words ? " (" : "", words, *words ? ")" : "", t.open_names);
	snprintf(a->held, sizeof(a->held), "%s", t.open_names);
	return false;
}

void round_auto_undecided(const struct round_auto *a, unsigned k, const char *why, char *line, size_t len)
{
	if (!a->looks)
		snprintf(line, len, "%s: stopped after %u round%s: %s; no case is judged before two rounds", a->what, k,
			 k == 1 ? "" : "s", why);
	else
		snprintf(line, len, "%s: stopped after %u round%s: %s; still undecided: %s", a->what, k, k == 1 ? "" : "s",
			 why, a->held);
}

void round_row_name(const struct cmp_table *t, const struct cmp_row *r, char *buf, size_t len)
{
	char p[256];

	cmp_row_params_apart(t, r, p, sizeof(p));
	snprintf(buf, len, "%s.%s %s%s%s", r->suite, r->test, r->metric, *p ? " at " : "", p);
}

/* --runs auto: every headline metric of the rounds so far, one side, with
 * its minimal detectable difference (% of the mean, k runs a side, 80%
 * power at 5%) from the spread of the run means; none before two rounds. */
struct round_case *run_round_cases(json_t *docs, size_t *ncases)
{
	struct cmp_table t;
	struct round_case *c = NULL;
	size_t n = 0;

	*ncases = 0;
	cmp_table_init(&t, suites_find);
	if (json_array_size(docs) < 2 || cmp_add_operand(&t, "rounds", json_incref(docs)) < 0 || cmp_build(&t) < 0 ||
	    !(c = calloc(t.nrows ? t.nrows : 1, sizeof(*c)))) {
		cmp_table_release(&t);
		return NULL;
	}
	for (size_t i = 0; i < t.nrows; i++) {
		const struct cmp_row *r = &t.rows[i];
		const struct cmp_cell *cell = &r->cells[0];

		if (!r->headline)
			continue;
		round_row_name(&t, r, c[n].name, sizeof(c[n].name));
		c[n].p = NAN;
		c[n].mdd_pct = cell->nruns >= 2 && fabs(cell->rsum.mean) > 0
			? stats_mdd_pct(cell->rsum.stddev / fabs(cell->rsum.mean), (double)cell->nruns,
					(double)cell->nruns - 1)
			: INFINITY;
		n++;
	}
	cmp_table_release(&t);
	*ncases = n;
	return c;
}

/* --runs: the figures of the rounds together, as compare judges them: each
 * headline's mean of the rounds' means and its 95% interval over the rounds
 * (the last round's summary alone would hide their spread). */
void run_print_rounds(json_t *docs, unsigned done)
{
	struct cmp_table t;

	cmp_table_init(&t, suites_find);
	if (json_array_size(docs) >= 2 && cmp_add_operand(&t, "rounds", json_incref(docs)) == 0 && cmp_build(&t) == 0) {
		printf("the %u rounds together (each figure the mean of the rounds' means, ± its 95%% confidence "
		       "interval over the rounds; rounds x repetitions):\n", done);
		cmp_print_figures(stdout, &t, 0);
	}
	cmp_table_release(&t);
}

/* --runs auto with a stored calibration of this machine (vmbench
 * calibrate): the rounds it predicts, before any is run. For every selected
 * test's headline metric the calibration has, the fewest rounds k whose mdd
 * at its between-run cv (with k - 1 degrees of freedom, as the rounds will
 * judge it) is within the target; the most of them is printed. */
void run_predict_rounds(const struct optset *own, const struct runner_item *items, size_t nitems,
			const json_t *fp)
{
	char dbp[4096], dir[4200], key[512], which[300] = "";
	double target = optset_double(own, "mdd"), worst_cv = 0;
	unsigned most = 0;
	size_t covered = 0, wanted = 0, i;
	json_t *cal, *e;

	if (db_default_path(optset_str(own, "db"), dbp, sizeof(dbp)) < 0 || calib_dir(dbp, dir, sizeof(dir)) < 0 ||
	    !(cal = calib_load(dir)))
		return;
	cmp_fingerprint_key(fp, key, sizeof(key));
	for (size_t it = 0; it < nitems; it++) {
		const struct vmb_suite *su = items[it].suite;

		for (size_t k = 0; su->tests[k].name; k++) {
			double cv = 0;
			bool found = false;

			if (!(items[it].test_mask >> k & 1))
				continue;
			wanted++;
			/* the noisiest of its cases (params) with a headline metric */
			json_array_foreach(json_object_get(cal, "cases"), i, e) {
				const char *m = json_string_value(json_object_get(e, "metric"));
				double x = json_number_value(json_object_get(e, "cv_between"));

				if (!m || strcmp(json_string_value(json_object_get(e, "machine")) ?: "", key) ||
				    strcmp(json_string_value(json_object_get(e, "suite")) ?: "", su->name) ||
				    strcmp(json_string_value(json_object_get(e, "test")) ?: "", su->tests[k].name) ||
				    !str_in_list(su->tests[k].headline, ',', m) || !isfinite(x) || x < 0 || x > 10)
					continue;
				found = true;
				cv = fmax(cv, x);
			}
			if (!found)
				continue;
			covered++;
			for (unsigned n = 2; n <= RUN_AUTO_MAX; n++)
				if (stats_mdd_pct(cv, n, n - 1) <= target || n == RUN_AUTO_MAX) {
					if (n > most || (n == most && cv > worst_cv)) {
						most = n;
						worst_cv = cv;
						snprintf(which, sizeof(which), "%s.%s", su->name, su->tests[k].name);
					}
					break;
				}
		}
	}
	json_decref(cal);
	if (covered && log_get_level() > LOG_ERROR)
		printf("--runs auto: this machine's stored calibration predicts %u round%s for --mdd %g%% (the noisiest "
		       "headline: %s, run-to-run noise %.1f%%; %zu of the %zu selected tests calibrated)\n", most,
		       most == 1 ? "" : "s", target, which, 100 * worst_cv, covered, wanted);
}
