/* Comparison as CSV (RFC 4180): a record per metric and operand. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_out.h"
#include "text.h"
#include "../core/util.h"
#include "../core/banned.h"

void cmp_csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A finite number, or an empty CSV field. */
static void csv_num(FILE *f, const char *fmt, double x)
{
	if (isfinite(x))
		fprintf(f, fmt, x);
}


int cmp_print_csv(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color)
{
	char buf[512];

	(void)color;
	/* mean and ci95_*: the cell's one figure (interval_of says over what);
	 * test and why: what the verdict rests on */
	fputs("suite,test,params,metric,unit,direction,operand,baseline,n,mean,ci95_low,ci95_high,interval_of,gap_pct,"
	      "verdict,p,runs,reps_min,reps_max,precision_reached,busy_reps,mdd_pct,basis,verdict_test,pairs,why", f);
	if (cmp_stat_name(t->stat))
		fputs(t->stat == CMP_STAT_TRIMMED ? ",trimmed_mean,trimmed_gap_pct" : ",median,median_gap_pct", f);
	fputs("\r\n", f);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params_exact(r, buf, sizeof(buf));
		for (size_t o = 0; o < t->nops; o++) {
			const struct cmp_cell *c = &r->cells[o];
			struct cmp_verdict v;

			if (!c->n)
				continue;
			cmp_judge(t, r, o, &v);
			cmp_csv_field(f, r->suite), fputc(',', f), cmp_csv_field(f, r->test), fputc(',', f);
			cmp_csv_field(f, buf), fputc(',', f), cmp_csv_field(f, r->metric), fputc(',', f);
			cmp_csv_field(f, r->unit), fputc(',', f);
			fprintf(f, "%s,", r->higher_better ? "higher" : "lower");
			cmp_csv_field(f, t->ops[o].name);
			fprintf(f, ",%s,%zu,", o == t->baseline ? "true" : "false", c->n);
			csv_num(f, "%.17g", c->fig.mean), fputc(',', f);
			csv_num(f, "%.17g", c->fig.ci95_low), fputc(',', f);
			csv_num(f, "%.17g", c->fig.ci95_high), fputc(',', f);
			fputs(c->fig_runs ? "runs," : "reps,", f);
			if (o != t->baseline && v.comparable) {
				csv_num(f, "%.6g", v.gap_pct);
				fprintf(f, ",%s,", cmp_verdict_word(&v));
			} else {
				fputs(",,", f);
			}
			if (o != t->baseline && v.w.valid)
				csv_num(f, "%.6g", v.w.p);
			fprintf(f, ",%zu,%zu,%zu,%s,%zu,", c->nruns, c->reps_min, c->reps_max,
				c->imprecise ? "false" : "true", c->busy_reps);
			if (o != t->baseline && v.w.valid)
				csv_num(f, "%.6g", v.rc.mdd_pct);
			fputc(',', f);
			if (o != t->baseline && v.comparable)
				fputs(!v.w.valid ? "none" : v.rc.calibrated ? "calibration" : v.rc.pairs ? "rounds" : "runs", f);
			fputc(',', f);
			if (o != t->baseline && v.comparable) {
				fprintf(f, "%s,", cmp_test_word(&v));
				if (v.rc.pairs)
					fprintf(f, "%zu", v.rc.pairs);
				fputc(',', f);
				cmp_csv_field(f, v.basis);
			} else {
				fputs(",,", f);
			}
			if (cmp_stat_name(t->stat)) {
				fputc(',', f), csv_num(f, "%.17g", cmp_cell_stat(t, c)), fputc(',', f);
				if (o != t->baseline)
					csv_num(f, "%.6g", cmp_stat_gap_pct(t, r, o));
			}
			fputs("\r\n", f);
		}
	}
	return 0;
}

