/* Comparison as a Markdown table: a row per metric, a column per operand. */
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

/* Markdown cell text: a | or a line break would end the cell. */
static void md_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

/* A note under the table: a paragraph line of its own. */
static void md_line(FILE *f, const char *s)
{
	md_text(f, s);
	fputs("  \n", f);
}

int cmp_print_markdown(FILE *f, const struct cmp_table *t, const struct cmp_filter *flt, bool color)
{
	char buf[512], cell[96], verdict[320], unit[40];

	(void)color;
	fputs("| test | params | metric |", f);
	for (size_t o = 0; o < t->nops; o++) {
		fputc(' ', f);
		md_text(f, t->ops[o].name);
		fputs(o == t->baseline ? " (baseline) |" : " | vs baseline |", f);
	}
	fputs("\n|---|---|---|", f);
	for (size_t o = 0; o < t->nops; o++)
		fputs(o == t->baseline ? "---:|" : "---:|---|", f);
	fputc('\n', f);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cmp_row *r = &t->rows[i];

		if (!cmp_row_selected(r, flt))
			continue;
		cmp_row_params(r, buf, sizeof(buf));
		fputs("| ", f), md_text(f, r->suite), fputc('.', f), md_text(f, r->test), fputs(" | ", f);
		md_text(f, buf), fputs(" | ", f), md_text(f, r->metric), fputs(" (", f);
		text_unit_label(r->metric, r->unit, unit, sizeof(unit));
		md_text(f, unit), fputs(") |", f);
		for (size_t o = 0; o < t->nops; o++) {
			cmp_cell_text(r, &r->cells[o], cell, sizeof(cell));
			fputc(' ', f), md_text(f, cell), fputs(" |", f);
			if (o == t->baseline)
				continue;
			cmp_verdict_text(t, r, o, verdict, sizeof(verdict));
			fputc(' ', f), md_text(f, verdict), fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
	cmp_bases(f, t, flt, md_line);
	cmp_stat_lines(f, t, flt, md_line);
	return 0;
}

