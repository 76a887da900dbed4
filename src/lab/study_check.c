/* A study experiment's checks as a whole, once its section ended
 * (study_exp_finish): its matrix expanded, every column among its suites
 * and naming one case, the baseline and the expectations' sides selecting
 * configurations, and a contend experiment's own rules (one configuration,
 * sides by lab contend's labels). The parser is study.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"
#include "study_parser.h"
#include "labrun.h"
#include "matrix.h"
#include "../core/str.h"
#include "../core/suite.h"
#include "../core/banned.h"


bool study_contend_label(const char *key)
{
	return !strcmp(key, "policy") || !strcmp(key, "guest") || !strcmp(key, "load");
}

/* A side of a contend experiment: KEY=VALUE[,KEY=VALUE],
 * each key one of lab contend's labels or a matrix key.
 * The values are not checked: they are the run's, not known before it. */
static int contend_side_check(struct parser *p, const char *side, const char *what)
{
	char buf[96];

	if (!strcmp(side, "host"))
		return study_fail(p, "%s '%s': lab contend measures its guests, not the host alone", what, side);
	snprintf(buf, sizeof(buf), "%s", side);
	for (char *save = NULL, *kv = strtok_r(buf, ", ", &save); kv; kv = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq || eq == kv || !eq[1]) {
			return study_fail(p, "%s '%s': KEY=VALUE[,KEY=VALUE], e.g. policy=rt,guest=1", what, side);
		}
		*eq = '\0';
		if (!study_contend_label(kv) && lab_key_find(kv) < 0)
			return study_fail(p, "%s '%s': '%s' is neither a label of lab contend's (%s) nor a matrix key", what, side,
					  kv, STUDY_CONTEND_LABELS);
	}
	return 0;
}

/* Does a side of an expectation, or the baseline, select a configuration?
 * The baseline must select exactly one: lab run refuses it otherwise, and
 * it would do so only when the experiment starts, after the ones before it
 * have booted. */
static int side_check(struct parser *p, const struct lab_matrix *m, const char *side, const char *what, bool one)
{
	struct strv pairs = { 0 };
	char err[512];
	size_t n = 0;

	if (!strcmp(side, "host"))
		return 0;
	if (lab_pairs_parse(side, &pairs, err, sizeof(err)) < 0) {
		strv_clear(&pairs);
		return study_fail(p, "%s '%s': %s", what, side, err);
	}
	for (size_t i = 0; i < m->n; i++)
		n += lab_config_matches(&m->configs[i], &pairs);
	strv_clear(&pairs);
	if (!n)
		return study_fail(p, "%s '%s' selects no configuration of the matrix", what, side);
	if (one && n > 1)
		return study_fail(p, "%s '%s' selects %zu configurations of the matrix: lab run's --baseline names one, "
				     "give more of its keys",
				  what, side, n);
	return 0;
}

const char *study_option_value(const struct study_experiment *e, const char *name)
{
	const char *v = NULL;
	size_t n = strlen(name);

	for (size_t i = 0; i < e->options.n; i++) {
		const char *w = e->options.v[i];

		if (!strncmp(w, name, n) && w[n] == '=')
			v = w + n + 1;
		else if (!strcmp(w, name) && i + 1 < e->options.n)
			v = e->options.v[++i];
	}
	return v;
}

/* Whether at ("k=v,k=v") gives key. */
static bool at_gives(const char *at, const char *key)
{
	size_t n = strlen(key);

	for (const char *s = at; *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : s + strlen(s))
		if (!strncmp(s, key, n) && s[n] == '=')
			return true;
	return false;
}

/* A column whose test runs one case per value of a list (a sweep, the
 * thread counts) must say which case with at: a document holds them all,
 * and the table would show whichever came first. */
static int column_cases(struct parser *p, const struct study_experiment *e, const struct study_column *c)
{
	const struct vmb_suite *su = lab_item_suite(c->test);
	const struct vmb_test *t = study_test_find(c->test);
	const char *v;

	if (!su || !t)
		return 0;
	if (t->sweep && !at_gives(c->at, t->sweep)) {
		char opt[96];

		snprintf(opt, sizeof(opt), "--%s.%s", su->name, t->sweep);
		const char *whose = "";

		v = study_option_value(e, opt);
		for (const struct vmb_opt *o = su->opts; !v && o && o->name; o++) {
			if (strcmp(o->name, t->sweep))
				continue;
			/* not given: its default, or under --quick its quick default */
			v = o->def ? o->def : "";
			whose = ", its default";
			if (!strchr(v, ',') && o->quick) {
				v = o->quick;
				whose = ", its default under --quick";
			}
		}
		if (v && strchr(v, ','))
			return study_fail(p, "column: %s runs a case per %s (%s %s%s): name one with 'at %s=VALUE'", c->test,
					  t->sweep, opt, v, whose, t->sweep);
	}
	/* 1 is always measured (parallel efficiency needs it): any other
	 * --threads, or none ("1,all"), makes several cases */
	if ((t->flags & VMB_TEST_THREADED) && !at_gives(c->at, "threads")) {
		v = study_option_value(e, "--threads");
		if (!v || strcmp(v, "1"))
			return study_fail(p, "column: %s runs a case per thread count (--threads %s; 1 is always measured): "
					     "name one with 'at threads=N'",
					  c->test, v ? v : "1,all, the default");
	}
	return 0;
}

/* The experiment's matrix, expanded into m, its count in e->nconfigs.
 * On success the caller releases m; a bad matrix is refused at its line. */
static int exp_matrix(struct parser *p, struct study_experiment *e, struct lab_matrix *m)
{
	char err[1024];
	int r;

	p->line = e->line;
	r = lab_matrix_parse(e->matrix, m, err, sizeof(err));
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return study_fail(p, "[experiment %s]: matrix: %s", e->id, err);
	e->nconfigs = m->n;
	return 0;
}

/* accel = kvm: some configuration may run under KVM (accel=kvm, or auto:
 * the key's); accel = tcg: none may (the study's host had no hardware
 * virtualization, and a row under KVM would measure what it did not).
 * lab contend does not fall back from KVM to TCG: its matrix says. */
static int accel_check(struct parser *p, const struct study_experiment *e, const struct lab_matrix *m)
{
	size_t tcg = 0;

	if (e->accel == STUDY_ACCEL_MATRIX)
		return 0;
	p->line = e->accel_line;
	if (e->contend && e->accel == STUDY_ACCEL_KVM)
		return study_fail(p, "accel = kvm: lab contend boots its guests under the matrix's accel, with no fall back "
				     "to TCG; give the matrix accel=kvm (or accel = tcg, as its accel=auto is TCG)");
	for (size_t i = 0; i < m->n; i++)
		tcg += !strcmp(m->configs[i].v[LAB_ACCEL], "tcg");
	if (e->accel == STUDY_ACCEL_KVM && tcg == m->n)
		return study_fail(p, "accel = kvm: every configuration of the matrix gives accel=tcg; give the ones the study "
				     "ran under hardware virtualization accel=kvm or auto (or no accel)");
	for (size_t i = 0; e->accel == STUDY_ACCEL_TCG && i < m->n; i++)
		if (strcmp(m->configs[i].v[LAB_ACCEL], "tcg"))
			return study_fail(p, "accel = tcg: the matrix's configuration %zu of %zu may run under KVM (accel=%s); "
					     "give it accel=tcg, as the study ran without hardware virtualization",
					  i + 1, m->n, m->configs[i].v[LAB_ACCEL]);
	return 0;
}

/* A contend experiment: one configuration, its guests booted once (no boots).
 * The baseline and the expectations select guests' documents by lab contend's labels.
 * The host is not measured. */
static int contend_finish(struct parser *p, struct study_experiment *e)
{
	struct lab_matrix m = { 0 };
	int r;

	if (e->boots)
		return study_fail(p, "[experiment %s]: boots is lab run's; lab contend boots its guests once", e->id);
	e->boots = 1;
	if (!*e->baseline)
		snprintf(e->baseline, sizeof(e->baseline), "none");
	if (!*e->matrix || !*e->suites || !e->ncolumns)
		return study_fail(p, "[experiment %s] needs a matrix, suites and a column", e->id);
	{
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", e->rows);
		for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save))
			if (!study_contend_label(k))
				return study_fail(p, "[experiment %s]: rows = %s: lab contend's guests share one configuration; "
						     "its rows are its labels (%s)",
						  e->id, e->rows, STUDY_CONTEND_LABELS);
	}
	for (size_t i = 0; i < e->ncolumns; i++) {
		p->line = e->columns[i].line;
		if (!study_suites_run(e->suites, e->columns[i].test) && strcmp(e->columns[i].test, "contend.share"))
			return study_fail(p, "column: %s is neither among the experiment's suites (%s) nor lab contend's own "
					     "contend.share",
					  e->columns[i].test, e->suites);
	}
	r = exp_matrix(p, e, &m);
	if (r < 0)
		return r;
	r = accel_check(p, e, &m);
	lab_matrix_release(&m);
	if (r < 0)
		return r;
	if (e->nconfigs != 1)
		return study_fail(p, "[experiment %s]: lab contend boots guests of one configuration; the matrix has %zu",
				  e->id, e->nconfigs);
	if (strcmp(e->baseline, "none") && contend_side_check(p, e->baseline, "baseline") < 0)
		return -EINVAL;
	if (*e->select && contend_side_check(p, e->select, "select") < 0)
		return -EINVAL;
	for (size_t i = 0; i < e->nrel; i++) {
		const char *what = e->rel[i].expect ? "expect: the side" : "claim: the side";

		p->line = e->rel[i].line;
		if (contend_side_check(p, e->rel[i].a, what) < 0 || contend_side_check(p, e->rel[i].b, what) < 0)
			return -EINVAL;
	}
	return 0;
}

/* What an experiment needs as a whole, once its section ended. */
int study_exp_finish(struct parser *p, struct study_experiment *e)
{
	struct lab_matrix m = { 0 };
	int r = 0;

	p->line = e->line;
	if (!*e->title)
		return study_fail(p, "[experiment %s] has no title", e->id);
	if (!e->rounds)
		e->rounds = 3;
	if (e->quick_rounds > e->rounds)
		return study_fail(p, "[experiment %s]: quick-rounds = %u is more than its rounds (%u): --quick runs fewer, "
				     "never more",
				  e->id, e->quick_rounds, e->rounds);
	if (!e->quick_rounds)
		e->quick_rounds = e->rounds;
	if (e->contend && !*e->not_run)
		return contend_finish(p, e);
	if (!e->boots)
		e->boots = 1;
	if (!*e->baseline)
		snprintf(e->baseline, sizeof(e->baseline), e->contend ? "none" : "host");
	if (*e->not_run)
		return 0; /* listed with why; what it would run is the study's, not checked */
	if (!*e->matrix)
		return study_fail(p, "[experiment %s] has no matrix (or not-run = why no QEMU lab can run it)", e->id);
	if (!*e->suites)
		return study_fail(p, "[experiment %s] has no suites", e->id);
	if (!e->ncolumns)
		return study_fail(p, "[experiment %s] has no column: the table it draws needs one", e->id);
	if (e->stat == STUDY_TRIMMED && e->quick_rounds < 3)
		return study_fail(p, "[experiment %s]: statistic = trimmed drops the highest and the lowest round, and needs "
				     "rounds >= 3 (and quick-rounds >= 3)",
				  e->id);
	{
		char items[256];

		snprintf(items, sizeof(items), "%s", e->suites);
		for (char *save = NULL, *it = strtok_r(items, ",", &save); it; it = strtok_r(NULL, ",", &save))
			if (!lab_item_suite(study_trim(it)))
				return study_fail(p, "[experiment %s]: suites: '%s' is no suite or SUITE.TEST of vmbench", e->id,
						  study_trim(it));
	}
	for (size_t i = 0; i < e->ncolumns; i++) {
		p->line = e->columns[i].line;
		if (!study_suites_run(e->suites, e->columns[i].test))
			return study_fail(p, "column: %s is not among the experiment's suites (%s)", e->columns[i].test,
					  e->suites);
		if (column_cases(p, e, &e->columns[i]) < 0)
			return -EINVAL;
	}
	r = exp_matrix(p, e, &m);
	if (r < 0)
		return r;
	r = accel_check(p, e, &m);
	if (!r && *e->rows && (strchr(e->rows, ',') || lab_key_find(e->rows) < 0 || !(m.given & (1u << lab_key_find(e->rows)))))
		r = study_fail(p, "[experiment %s]: rows = %s: a lab run's rows are one key the matrix gives", e->id, e->rows);
	if (!r && *e->select)
		r = study_fail(p, "[experiment %s]: select is lab contend's (its guests' labels); a lab run's rows are its "
				  "configurations", e->id);
	if (!r) {
		/* the table's rows: the configurations, or the rows key's values, and the host */
		size_t rows = m.n, k = *e->rows ? (size_t)lab_key_find(e->rows) : 0;

		for (size_t i = 0; *e->rows && i < m.n; i++)
			for (size_t j = 0; j < i; j++)
				if (!strcmp(m.configs[i].v[k], m.configs[j].v[k])) {
					rows--;
					break;
				}
		rows += strcmp(e->baseline, "none") != 0;
		if (rows > STUDY_MAX_ROWS)
			r = study_fail(p, "[experiment %s]: a table of %zu rows; at most %d (fewer configurations, or rows = a "
					  "key with fewer values)",
				       e->id, rows, STUDY_MAX_ROWS);
	}
	if (!r && strcmp(e->baseline, "host") && strcmp(e->baseline, "none"))
		r = side_check(p, &m, e->baseline, "baseline", true);
	for (size_t i = 0; !r && i < e->nrel; i++) {
		const char *what = e->rel[i].expect ? "expect: the side" : "claim: the side";

		p->line = e->rel[i].line;
		/* lab run measures the host only as a baseline */
		if (!strcmp(e->baseline, "none") && (!strcmp(e->rel[i].a, "host") || !strcmp(e->rel[i].b, "host"))) {
			r = study_fail(p, "%s: a side is the host, which baseline = none does not measure",
				       e->rel[i].expect ? "expect" : "claim");
			break;
		}
		r = side_check(p, &m, e->rel[i].a, what, false);
		if (!r)
			r = side_check(p, &m, e->rel[i].b, what, false);
	}
	lab_matrix_release(&m);
	return r;
}
