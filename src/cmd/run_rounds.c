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

/* --runs auto: the largest minimal detectable difference (% of the mean,
 * k runs a side, 80% power at 5%) over the headline metrics of the rounds
 * so far, from the spread of their run means; INFINITY before two rounds
 * or when nothing could be judged. *which names it. */
double run_worst_mdd(json_t *docs, char *which, size_t len)
{
	struct cmp_table t;
	double worst = -1;

	cmp_table_init(&t, suites_find);
	which[0] = '\0';
	if (json_array_size(docs) < 2 || cmp_add_operand(&t, "rounds", json_incref(docs)) < 0 || cmp_build(&t) < 0) {
		cmp_table_release(&t);
		return INFINITY;
	}
	for (size_t i = 0; i < t.nrows; i++) {
		const struct cmp_row *r = &t.rows[i];
		const struct cmp_cell *c = &r->cells[0];
		double mdd;

		if (!r->headline || c->nruns < 2 || !(fabs(c->rsum.mean) > 0))
			continue;
		mdd = stats_mdd_pct(c->rsum.stddev / fabs(c->rsum.mean), (double)c->nruns, (double)c->nruns - 1);
		if (!(mdd <= worst)) {
			char p[256];

			worst = mdd;
			cmp_row_params(r, p, sizeof(p));
			snprintf(which, len, "%s.%s%s%s %s", r->suite, r->test, *p ? " " : "", p, r->metric);
		}
	}
	cmp_table_release(&t);
	return worst < 0 ? INFINITY : worst;
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
