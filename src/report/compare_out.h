/* Private to src/report/compare*.c: what the comparison's formats share,
 * and the printer of each format (cmp_print dispatches by their table). */
#ifndef VMB_COMPARE_OUT_H
#define VMB_COMPARE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

/* "runs x repetitions" of a cell: "3x5", "3x4-5" */
void cmp_shape_text(const struct cmp_cell *c, char *buf, size_t len);
/* The cell's one figure (mean, 95% CI: the verdict's), runs x repetitions, "imprecise" */
void cmp_cell_text(const struct cmp_row *r, const struct cmp_cell *c, char *buf, size_t len);
/* ", mdd 3.1%" when the minimal detectable difference is known, else "" */
void cmp_mdd_text(const struct cmp_verdict *v, char *buf, size_t len);
/* The test a verdict rests on: "paired-t", "welch", ... */
const char *cmp_test_word(const struct cmp_verdict *v);
/* The word the machine-readable formats give a verdict. */
const char *cmp_verdict_word(const struct cmp_verdict *v);

/* With --stat a section of the descriptive statistic; each line through put. */
void cmp_stat_lines(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, void (*put)(FILE *, const char *));

/* One per enum cmp_format; color matters to text only. */
int cmp_print_text(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color);
int cmp_print_markdown(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color);
int cmp_print_csv(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color);
int cmp_print_json(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color);

#endif
