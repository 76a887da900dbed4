/* Fuzz target: the study file's parser (src/lab/study.c) and what it
 * promises of what it accepts: every experiment either not run (with why)
 * or with a matrix, suites, a column, rounds and boots in range, each
 * expectation on a column that exists; a refusal says why, at a line, with
 * nothing of the file that could drive a terminal (it is echoed escaped);
 * each option line's words where the line says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/str.h"
#include "../../src/lab/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct study s;
	char err[1200];

	if (size > STUDY_MAX_BYTES)
		return 0;
	if (study_parse((const char *)data, size, "f.study", &s, err, sizeof(err)) < 0) {
		if (strncmp(err, "f.study:", 8) || s.nexp)
			abort(); /* a refusal names the line, and keeps nothing */
		if (str_find_control(err, strlen(err)) >= 0 || str_find_bad_utf8(err, strlen(err)) >= 0)
			abort(); /* and echoes the file as text */
		return 0;
	}
	if (s.format != STUDY_FORMAT || !*s.title || !*s.source || !s.nexp || s.nexp > STUDY_MAX_EXPERIMENTS)
		abort();
	for (size_t i = 0; i < s.nexp; i++) {
		const struct study_experiment *e = &s.exp[i];

		if (!*e->id || !*e->title || e->rounds < 1 || e->rounds > 100 || e->boots < 1 || e->boots > 100)
			abort();
		for (size_t k = 0; k < e->noptlines; k++) {
			const struct study_optline *ol = &e->optlines[k];
			const struct strv *w = ol->quick ? &e->quick_options : &e->options;

			if (!ol->n || ol->first + ol->n > w->n || strncmp(w->v[ol->first], "--", 2) ||
			    str_find_control(w->v[ol->first], strlen(w->v[ol->first])) >= 0)
				abort();
		}
		if (*e->not_run)
			continue;
		if (!*e->matrix || !*e->suites || !e->ncolumns || !e->nconfigs)
			abort();
		for (size_t k = 0; k < e->nrel; k++)
			if (e->rel[k].col >= e->ncolumns || e->rel[k].col_b >= e->ncolumns || !*e->rel[k].a || !*e->rel[k].b ||
			    (e->rel[k].op == STUDY_RATIO && !(e->rel[k].lo > 0 && e->rel[k].lo < e->rel[k].hi)))
				abort();
		for (size_t k = 0; k < e->nclaims; k++) {
			char how[1024];

			if (e->claim[k].first + e->claim[k].n > e->nrel || (!e->claim[k].n && !*e->claim[k].not_comparable))
				abort();
			study_claim_how(e, &e->claim[k], how, sizeof(how));
		}
		for (size_t k = 0; k < e->ncolumns; k++)
			if (*e->columns[k].unit && study_unit_factor(e->columns[k].unit, e->columns[k].unit) != 1)
				abort();
	}
	study_release(&s);
	return 0;
}
