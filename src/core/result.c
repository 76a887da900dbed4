/* The result model: suites, tests, cases and metrics with their samples,
 * built by the runner and rebuilt by the store from a document. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "result.h"
#include "str.h"
#include "banned.h"

const char *vmb_status_name(enum vmb_status s)
{
	static const char *const names[] = { "ok", "skipped", "failed", "interrupted" };

	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "?";
}

int vmb_params_add(struct vmb_param **params, size_t *n, const char *key, const char *value)
{
	struct vmb_param *np = realloc(*params, (*n + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	*params = np;
	np[*n].key = xstrdup(key);
	np[*n].value = xstrdup(value);
	if (!np[*n].key || !np[*n].value) {
		free(np[*n].key);
		free(np[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

void vmb_params_free(struct vmb_param *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].key);
		free(p[i].value);
	}
	free(p);
}

struct vmb_metric *vmb_case_add_metric(struct vmb_case *c, const char *name, enum vmb_unit unit,
				       enum vmb_dir dir)
{
	struct vmb_metric *nm;

	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	nm = realloc(c->metrics, (c->nmetrics + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	c->metrics = nm;
	nm = &c->metrics[c->nmetrics];
	memset(nm, 0, sizeof(*nm));
	nm->name = xstrdup(name);
	if (!nm->name)
		return NULL;
	nm->unit = unit;
	nm->dir = dir;
	c->nmetrics++;
	return nm;
}

int vmb_metric_push(struct vmb_metric *m, double v)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 8;
		double *ns = realloc(m->samples, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		m->samples = ns;
		m->cap = nc;
	}
	m->samples[m->n++] = v;
	return 0;
}

size_t vmb_series_downsample(double *t, double *v, size_t n, size_t max, unsigned *bucket)
{
	size_t k, out = 0;

	if (max == 0 || n <= max) {
		*bucket = 1;
		return n;
	}
	k = (n + max - 1) / max;
	/* in place: bucket i is read (from index i*k) before point i is
	 * written, and i <= i*k */
	for (size_t i = 0; i < n; i += k) {
		size_t end = i + k < n ? i + k : n;
		double sum = 0;

		for (size_t j = i; j < end; j++)
			sum += v[j];
		t[out] = t[end - 1];
		v[out] = sum / (double)(end - i);
		out++;
	}
	*bucket = (unsigned)k;
	return out;
}

int vmb_case_add_series(struct vmb_case *c, const char *name, enum vmb_unit unit, unsigned rep,
			const double *t, const double *v, size_t n, size_t max)
{
	struct vmb_series *ns = realloc(c->series, (c->nseries + 1) * sizeof(*ns)), *s;

	if (!ns)
		return -ENOMEM;
	c->series = ns;
	s = &ns[c->nseries];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->t = malloc((n ? n : 1) * sizeof(double));
	s->v = malloc((n ? n : 1) * sizeof(double));
	if (!s->name || !s->t || !s->v) {
		free(s->name);
		free(s->t);
		free(s->v);
		return -ENOMEM;
	}
	memcpy(s->t, t, n * sizeof(double));
	memcpy(s->v, v, n * sizeof(double));
	s->unit = unit;
	s->rep = rep;
	s->n = vmb_series_downsample(s->t, s->v, n, max, &s->bucket);
	c->nseries++;
	return 0;
}

const struct vmb_metric *vmb_case_metric(const struct vmb_case *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

void vmb_case_release(struct vmb_case *c)
{
	vmb_params_free(c->params, c->nparams);
	for (size_t i = 0; i < c->nmetrics; i++) {
		free(c->metrics[i].name);
		free(c->metrics[i].samples);
		hist_free(c->metrics[i].hist);
	}
	free(c->metrics);
	free(c->noise);
	for (size_t i = 0; i < c->nseries; i++) {
		free(c->series[i].name);
		free(c->series[i].t);
		free(c->series[i].v);
	}
	free(c->series);
}

void vmb_results_release(struct vmb_results *res)
{
	for (size_t s = 0; s < res->nsuites; s++) {
		struct vmb_suite_result *sr = &res->suites[s];

		for (size_t t = 0; t < sr->ntests; t++) {
			struct vmb_test_result *tr = &sr->tests[t];

			for (size_t c = 0; c < tr->ncases; c++)
				vmb_case_release(&tr->cases[c]);
			free(tr->cases);
			free(tr->name);
			free(tr->reason);
		}
		free(sr->tests);
		vmb_params_free(sr->options, sr->noptions);
		vmb_params_free(sr->notes, sr->nnotes);
		free(sr->name);
		free(sr->reason);
	}
	free(res->suites);
	res->suites = NULL;
	res->nsuites = 0;
}
