/* A small, fully known result, built through the runner's own helpers. */
#ifndef VMB_FIXTURE_DOC_H
#define VMB_FIXTURE_DOC_H

#include <stdlib.h>
#include <string.h>

#include "../../src/core/runner.h"
#include "../../src/store/doc.h"

static inline void fixture_results(struct vmb_results *res)
{
	struct vmb_suite_result *s;
	struct vmb_test_result *t;
	struct vmb_case *c;
	struct vmb_metric *m;
	static const double rates[] = { 100, 102, 98, 101 };

	memset(res, 0, sizeof(*res));
	res->suites = calloc(2, sizeof(*res->suites));
	res->nsuites = 2;
	s = &res->suites[0];
	s->name = strdup("cpu");
	vmb_params_add(&s->options, &s->noptions, "max-prime", "10000");
	s->tests = calloc(1, sizeof(*s->tests));
	s->ntests = 1;
	t = &s->tests[0];
	t->name = strdup("prime");
	t->cases = calloc(1, sizeof(*t->cases));
	t->ncases = 1;
	c = &t->cases[0];
	vmb_params_add(&c->params, &c->nparams, "threads", "2");
	c->reps = 4;
	c->precision_reached = true;
	c->ci_rel_pct = 1.5;
	c->elapsed_s = 4.2;
	m = vmb_case_add_metric(c, "events_per_s", VMB_UNIT_PER_S, VMB_HIGHER);
	m->headline = true;
	for (size_t i = 0; i < 4; i++)
		vmb_metric_push(m, rates[i]);
	stats_summarize(m->samples, m->n, &m->sum);
	m = vmb_case_add_metric(c, "latency", VMB_UNIT_NS, VMB_LOWER);
	m->hist = hist_new();
	for (uint64_t i = 1; i <= 1000; i++)
		hist_record(m->hist, i * 1000);
	vmb_metric_push(m, hist_mean(m->hist));
	stats_summarize(m->samples, m->n, &m->sum);

	s = &res->suites[1];
	s->name = strdup("net");
	s->status = VMB_SKIPPED;
	s->reason = strdup("no network namespace");
}

static inline json_t *fixture_doc(void)
{
	static const struct runner_settings rs = { .time_s = 1, .min_reps = 3, .max_reps = 10, .precision_pct = 2 };
	static char *argv[] = { "vmbench", "run", "cpu" };
	struct vmb_results res;
	struct strv labels = { 0 };
	json_t *fp = json_pack("{s:s, s:{s:s}}", "hostname", "lab1", "hypervisor", "name", "KVM");
	json_t *doc = NULL;
	char err[256];

	fixture_results(&res);
	strv_push(&labels, "hv=kvm");
	strv_push(&labels, "disk=virtio");
	if (doc_from_results(&res, &(struct doc_meta){ .argc = 3, .argv = argv, .started = 1.7e9,
						       .ended = 1.7e9 + 60, .fingerprint = fp,
						       .labels = &labels, .rs = &rs }, &doc, err, sizeof(err)) < 0)
		doc = NULL;
	vmb_results_release(&res);
	strv_clear(&labels);
	json_decref(fp);
	return doc;
}

#endif
