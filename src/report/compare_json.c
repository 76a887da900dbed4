/* Comparison as JSON: rows, cells and verdicts for machines. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "text.h"
#include "../core/log.h"
#include "../core/util.h"
#include "../core/banned.h"

static json_t *json_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

int cmp_print_json(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color)
{
	json_t *ops = json_array(), *rows = json_array(), *out;
	/* any part that cannot be made (out of memory; an operand named by a
	 * file path that is not UTF-8) fails the output: no cell goes missing */
	bool bad = !ops || !rows;

	(void)color;
	for (size_t o = 0; !bad && o < t->nops; o++)
		bad = json_array_append_new(ops, json_pack("{s:s, s:I, s:b}", "name", t->ops[o].name, "runs",
						     (json_int_t)json_array_size(t->ops[o].docs), "baseline", o == t->baseline)) < 0;
	for (size_t i = 0; !bad && i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];
		json_t *cells;

		if (!cmp_row_selected(r, flt))
			continue;
		cells = json_array();
		bad = !cells;
		for (size_t o = 0; !bad && o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;
			json_t *cell;

			if (!c->n) {
				bad = json_array_append_new(cells, json_null()) < 0;
				continue;
			}
			/* mean and ci95: the cell's one figure, the verdict's; the
			 * repetitions' pooled spread under "reps", as what it is */
			cell = json_pack("{s:I, s:o, s:o, s:o, s:s, s:I, s:I, s:I, s:b, s:I, s:I}", "n", (json_int_t)c->n,
					 "mean", json_num(c->fig.mean), "ci95_low", json_num(c->fig.ci95_low), "ci95_high",
					 json_num(c->fig.ci95_high), "interval_of", c->fig_runs ? "runs" : "reps",
					 "runs", (json_int_t)c->nruns, "reps_min",
					 (json_int_t)c->reps_min, "reps_max", (json_int_t)c->reps_max, "precision_reached",
					 c->imprecise == 0, "busy_reps", (json_int_t)c->busy_reps, "sensed_reps",
					 (json_int_t)c->noise_reps);
			bad = !cell;
			if (!bad && c->nruns >= 2)
				bad = json_object_set_new(cell, "run_means", json_pack("{s:o, s:o, s:o, s:o}", "mean",
					json_num(c->rsum.mean), "stddev", json_num(c->rsum.stddev), "ci95_low",
					json_num(c->rsum.ci95_low), "ci95_high", json_num(c->rsum.ci95_high))) < 0;
			if (!bad)
				bad = json_object_set_new(cell, "reps", json_pack("{s:o, s:o, s:o, s:o}", "mean",
					json_num(c->sum.mean), "stddev", json_num(c->sum.stddev), "ci95_low",
					json_num(c->sum.ci95_low), "ci95_high", json_num(c->sum.ci95_high))) < 0;
			if (!bad && cmp_stat_name(t->stat))
				bad = json_object_set_new(cell, "stat", json_pack("{s:s, s:o, s:o}", "name",
					cmp_stat_name(t->stat), "value", json_num(cmp_cell_stat(t, c)), "gap_pct",
					json_num(o == t->baseline ? NAN : cmp_stat_gap_pct(t, r, o)))) < 0;
			cmp_judge(t, r, o, &v);
			if (!bad && o != t->baseline && v.comparable) {
				bad = json_object_set_new(cell, "gap_pct", json_num(v.gap_pct)) < 0 ||
				      json_object_set_new(cell, "verdict", json_string(cmp_verdict_word(&v))) < 0 ||
				      json_object_set_new(cell, "basis", json_string(!v.w.valid ? "none: one run, no calibration"
										     : v.rc.calibrated ? "calibration"
										     : v.rc.pairs ? "rounds" : "run means")) < 0 ||
				      json_object_set_new(cell, "verdict_test", json_string(cmp_test_word(&v))) < 0 ||
				      json_object_set_new(cell, "why", json_string(v.basis)) < 0;
				if (!bad && v.rc.pairs)
					bad = json_object_set_new(cell, "pairs", json_integer((json_int_t)v.rc.pairs)) < 0 ||
					      json_object_set_new(cell, "unpaired_runs", json_integer((json_int_t)v.unpaired)) < 0 ||
					      json_object_set_new(cell, "p_t", json_num(v.rc.p_t)) < 0 ||
					      json_object_set_new(cell, "p_exact", json_num(v.rc.p_exact)) < 0;
				if (!bad && v.w.valid)
					bad = json_object_set_new(cell, "p", json_num(v.w.p)) < 0 ||
					      json_object_set_new(cell, "df", json_num(v.rc.df)) < 0 ||
					      json_object_set_new(cell, "diff_ci95_pct", json_pack("[o, o]",
						json_num(v.rc.ci95_low_pct), json_num(v.rc.ci95_high_pct))) < 0 ||
					      json_object_set_new(cell, "diff_ci90_pct", json_pack("[o, o]",
						json_num(v.rc.ci90_low_pct), json_num(v.rc.ci90_high_pct))) < 0 ||
					      json_object_set_new(cell, "mdd_pct", json_num(v.rc.mdd_pct)) < 0;
			}
			if (bad)
				json_decref(cell);
			else
				bad = json_array_append_new(cells, cell) < 0;
		}
		if (bad) {
			json_decref(cells);
			break;
		}
		bad = json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:b, s:o}", "suite", r->suite,
			"test", r->test, "params", r->pobj ? json_incref((json_t *)r->pobj) : json_object(), "metric",
			r->metric, "unit", r->unit, "direction", r->higher_better ? "higher" : "lower", "headline",
			r->headline, "cells", cells)) < 0;
	}
	if (bad) {
		json_decref(ops);
		json_decref(rows);
		log_error("compare as JSON: out of memory, or an operand name or parameter that is not UTF-8");
		return -EINVAL;
	}
	out = json_pack("{s:o, s:f, s:s, s:s, s:o}", "operands", ops, "margin_pct", t->margin_pct, "pair_by",
			t->pair_by ? t->pair_by : CMP_PAIR_AUTO, "stat", cmp_stat_name(t->stat) ? cmp_stat_name(t->stat) : "mean",
			"metrics", rows);
	if (!out || json_dumpf(out, f, JSON_INDENT(2)) < 0) {
		json_decref(out);
		return -EIO;
	}
	fputc('\n', f);
	json_decref(out);
	return 0;
}

