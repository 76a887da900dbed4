/* The lab's table of host-measured suites (hostmeasure.h): a row per
 * lab-only suite, its step and its measure function, which turns what the
 * lab lends it (the guest's QEMU, the boots' phases, what lab contend saw
 * of a guest) into the suite's result, by the measurer of its own where
 * it has one (balloon.c, vmops.c). Called by a configuration's run and by
 * lab contend; it calls only downward. */
#include <math.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balloon.h"
#include "hostmeasure.h"
#include "hostsuite.h"
#include "labopts.h"
#include "vmops.h"
#include "../core/clock.h"
#include "../core/parse.h"
#include "../core/result.h"
#include "../core/stats.h"
#include "../core/str.h"
#include "../suites/balloon.h"
#include "../suites/contend.h"
#include "../suites/suites.h"
#include "../suites/vmops.h"
#ifdef VMB_TEST_LAB
#include "../../tests/toy/toylab.h"
#endif
#include "../core/banned.h"

const struct vmb_suite *lab_item_suite(const char *item)
{
	char name[64];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(item, "."), item);
	return suites_find(name);
}

const struct lab_host_row *lab_host_row_of(const struct vmb_suite *s)
{
	for (size_t i = 0; s && i < lab_host_nrows; i++)
		if (lab_host_rows[i].suite == s)
			return &lab_host_rows[i];
	return NULL;
}

bool lab_host_measured(const char *item)
{
	return lab_host_row_of(lab_item_suite(item)) != NULL;
}

bool lab_host_asked(const struct vmb_suite *s, const char *items, const char *test)
{
	char what[64];

	for (const char *p = items; p && *p; p += strcspn(p, ","), p += *p == ',') {
		const char *dot;

		snprintf(what, sizeof(what), "%.*s", (int)strcspn(p, ","), p);
		if (lab_item_suite(what) != s)
			continue;
		dot = strchr(what, '.');
		if (!test || (dot && !strcmp(dot + 1, test)))
			return true;
		if (dot)
			continue;
		/* the suite alone: each test but those measured only when named */
		for (const struct vmb_test *t = s->tests; t->name; t++)
			if (!strcmp(t->name, test))
				return !(t->flags & VMB_TEST_ON_REQUEST);
	}
	return false;
}

/* The balloon suite, measured from the host (src/lab/balloon.c) after the
 * guest's items: its tests that --suites names, skipped with the reason
 * where the configuration has no balloon. */
static int balloon_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen)
{
	const struct lab_hv_ops *hv = rq->vm->hv;
	struct lab_balloon bl = { .hv = hv, .ctl = rq->vm->ctl, .conn = rq->vm->conn, .fp = rq->fp };
	uint64_t mem = 0;
	char why[512] = "";

	bl.idle = lab_host_asked(rq->suite, rq->o->suites, BALLOON_TEST_IDLE);
	bl.loaded = lab_host_asked(rq->suite, rq->o->suites, BALLOON_TEST_LOADED);
	if (!lab_config_device(rq->c, LAB_BALLOON))
		bl.skip = "the configuration has no balloon: give the matrix key balloon=on";
	else if (!hv->balloon_set || !hv->balloon_get || !hv->balloon_wait)
		bl.skip = lab_hv_why_not(hv, !hv->balloon_set ? "balloon_set" : !hv->balloon_get ? "balloon_get"
											 : "balloon_wait");
	else if (parse_size(rq->c->v[LAB_MEM], 1, UINT64_MAX, &mem) < 0 ||
		 lab_balloon_opts(rq->o->run_opts, mem, &bl.size, &bl.timeout_s, why, sizeof(why)) < 0)
		return errf(err, errlen, -EINVAL, "balloon: mem=%s: %s", rq->c->v[LAB_MEM], why);
	if (!bl.skip && bl.loaded)
		bl.load_opts = rq->loads[0];
	return lab_balloon_measure(&bl, suite, err, errlen);
}

/* The vmops suite, measured from the host (src/lab/vmops.c) after the
 * guest's items and the balloon: its tests that --suites names, those that
 * move the guest skipped with the reason where it cannot move. The guest
 * may end in another QEMU: rq->vm is that one's afterwards. */
static int vmops_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen)
{
	struct lab_vmops v = { .vm = rq->vm, .run_opts = rq->o->run_opts, .fp = rq->fp };
	const char *items = rq->o->suites;

	v.migrate = lab_host_asked(rq->suite, items, VMOPS_TEST_MIGRATE);
	v.saverestore = lab_host_asked(rq->suite, items, VMOPS_TEST_SAVERESTORE);
	v.snapshot = lab_host_asked(rq->suite, items, VMOPS_TEST_SNAPSHOT);
	v.savevm = lab_host_asked(rq->suite, items, VMOPS_TEST_SAVEVM);
	v.no_move = lab_vmops_unsupported(rq->c, rq->vm->paths);
	/* in the order of the descriptor's loads */
	v.load_opts = rq->loads[0];
	v.write_opts = rq->loads[1];
	v.clock_opts = rq->loads[2];
	return lab_vmops_measure(&v, suite, err, errlen);
}

/* boot.start's test: the share of the boots tried that started (se->n of
 * se->attempted), in percent, its Wilson 95% interval, the two counts; and
 * why the others did not start, as a note. One sample each: a round's
 * boots are its one figure. */
static int boot_start_result(struct vmb_test_result *tr, const struct lab_boot_series *se, struct vmb_param **notes,
			     size_t *nnotes)
{
	double lo, hi;
	struct vmb_case *c;

	stats_wilson(se->n, se->attempted, 1.959964, &lo, &hi);
	const struct {
		const char *name;
		enum vmb_unit unit;
		double v;
	} m[] = {
		{ BOOT_START_PCT, VMB_UNIT_PCT, 100.0 * se->n / se->attempted },
		{ BOOT_START_LO, VMB_UNIT_PCT, 100.0 * lo },
		{ BOOT_START_HI, VMB_UNIT_PCT, 100.0 * hi },
		{ BOOT_STARTED, VMB_UNIT_NONE, se->n },
		{ BOOT_ATTEMPTED, VMB_UNIT_NONE, se->attempted },
	};

	tr->name = xstrdup(BOOT_TEST_START);
	tr->cases = calloc(1, sizeof(*tr->cases));
	if (!tr->name || !tr->cases)
		return -ENOMEM;
	tr->ncases = 1;
	c = &tr->cases[0];
	c->reps = 1;
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		struct vmb_metric *mm = vmb_case_add_metric(c, m[k].name, m[k].unit, VMB_HIGHER);

		if (!mm || vmb_metric_push(mm, m[k].v) < 0)
			return -ENOMEM;
		mm->headline = k == 0;
		stats_summarize(mm->samples, mm->n, &mm->sum);
	}
	if (se->failures && vmb_params_add(notes, nnotes, BOOT_START_FAILURES, se->failures) < 0)
		return -ENOMEM;
	return 0;
}

/* The boot suite's result: its declared tests (cold, warm, reboot) that
 * have boots in series (indexed as boot_suite.tests), a metric per phase
 * of the configuration's and their sum, with an SSH server the boot to its
 * banner too, a reboot's shutdown beside them, and the note naming the
 * phases in order, which is what the report stacks. */
static json_t *boot_result(const struct boot_phase *phase, size_t np, const struct lab_boot_series series[BOOT_NTESTS])
{
	struct vmb_results res = { 0 };
	struct vmb_suite_result *s;
	struct vmb_case *c;
	char phases[256] = "";
	size_t off = 0;
	bool ssh = np == BOOT_SSH_NPHASES;

	for (size_t k = 0; k < np && off < sizeof(phases); k++)
		str_appendf(phases, sizeof(phases), &off, "%s%s", k ? "," : "", phase[k].metric);
	if (lab_host_suite_begin(&res, &boot_suite, BOOT_NTESTS, &s) < 0 ||
	    vmb_params_add(&s->notes, &s->nnotes, BOOT_PHASES_NOTE, phases) < 0)
		goto out;
	s->ntests = 0;
	for (size_t t = 0; t < BOOT_NTESTS; t++) {
		const struct lab_boot_series *se = &series[t];
		struct vmb_test_result *tr = &s->tests[s->ntests];

		if (t == BOOT_START) {
			if (se->attempted && boot_start_result(tr, se, &s->notes, &s->nnotes) < 0)
				goto out;
			s->ntests += se->attempted > 0;
			continue;
		}
		if (!se->n)
			continue;
		s->ntests++;
		tr->name = xstrdup(boot_suite.tests[t].name);
		tr->cases = calloc(1, sizeof(*tr->cases));
		if (!tr->name || !tr->cases)
			goto out;
		tr->ncases = 1;
		c = &tr->cases[0];
		c->reps = se->n;
		/* the phases, then their sum (the headline), then to SSH: the phases but the last */
		for (size_t k = 0; k <= np + ssh; k++) {
			struct vmb_metric *m = vmb_case_add_metric(c, k < np ? phase[k].metric : k == np
									   ? boot_suite.tests[t].headline : BOOT_TO_SSH,
								   VMB_UNIT_NS, VMB_LOWER);

			if (!m)
				goto out;
			for (unsigned i = 0; i < se->n; i++) {
				double v = 0;

				for (size_t j = 0; j < np; j++)
					v += j == k || (k == np) || (k == np + 1 && j < np - 1) ? se->ph[i][j] : 0;
				if (vmb_metric_push(m, v * NSEC_PER_SEC) < 0)
					goto out;
			}
			m->headline = k == np;
			stats_summarize(m->samples, m->n, &m->sum);
		}
		if (se->shutdown) {
			struct vmb_metric *m = vmb_case_add_metric(c, BOOT_SHUTDOWN, VMB_UNIT_NS, VMB_LOWER);

			if (!m)
				goto out;
			for (unsigned i = 0; i < se->n; i++)
				if (vmb_metric_push(m, se->shutdown[i] * NSEC_PER_SEC) < 0)
					goto out;
			stats_summarize(m->samples, m->n, &m->sum);
		}
	}
	return lab_host_suite_end(&res);
out:
	vmb_results_release(&res);
	return NULL;
}

static int boot_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen)
{
	json_t *bs = boot_result(rq->phase, rq->nphase, rq->series);

	if (!bs)
		return errf(err, errlen, -ENOMEM, "out of memory storing the boot phases");
	*suite = bs;
	return 0;
}

/* The contend suite's result for one guest's cell: a case per RUN (its
 * item as the case's parameter) with the figures that were measured (no
 * number made up for one that was not), and the cell's notes. */
static int contend_measure(const struct lab_host_req *rq, json_t **suite, char *err, size_t errlen)
{
	struct vmb_results res = { 0 };
	struct vmb_suite_result *s;
	struct vmb_test_result *t;
	int r = lab_host_suite_begin(&res, rq->suite, 1, &s);

	if (r < 0)
		return errf(err, errlen, r, "the %s suite's result: %s", rq->suite->name, strerror(-r));
	s->ntests = 1;
	t = &s->tests[0];
	/* its one test: what every case of the cell is */
	t->name = xstrdup(rq->suite->tests[0].name);
	t->cases = rq->nseen ? calloc(rq->nseen, sizeof(*t->cases)) : NULL;
	if (!t->name || (rq->nseen && !t->cases))
		goto nomem;
	for (size_t i = 0; i < rq->nseen; i++) {
		const struct lab_host_contended *e = &rq->seen[i];
		struct vmb_case *c = &t->cases[t->ncases++];
		const struct {
			const char *name;
			enum vmb_unit unit;
			enum vmb_dir dir;
			double v;
			bool headline;
		} m[] = {
			{ CONTEND_SHARE, VMB_UNIT_PCT, VMB_HIGHER, e->share_pct, true },
			{ CONTEND_PROMISED, VMB_UNIT_PCT, VMB_HIGHER, e->promised_pct, false },
			{ CONTEND_DELAY, VMB_UNIT_PCT, VMB_LOWER, e->delay_pct, true },
			{ CONTEND_DELAY_SLICE, VMB_UNIT_NS, VMB_LOWER, e->delay_ns_per_slice, false },
			{ CONTEND_JAIN, VMB_UNIT_RATIO, VMB_HIGHER, e->jain, false },
		};

		c->reps = 1;
		c->warmup_steady = -1;
		if (vmb_params_add(&c->params, &c->nparams, CONTEND_ITEM_PARAM, e->item) < 0)
			goto nomem;
		for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
			struct vmb_metric *mm;

			if (!isfinite(m[k].v))
				continue;
			mm = vmb_case_add_metric(c, m[k].name, m[k].unit, m[k].dir);
			if (!mm || vmb_metric_push(mm, m[k].v) < 0)
				goto nomem;
			mm->headline = m[k].headline;
			stats_summarize(mm->samples, mm->n, &mm->sum);
		}
	}
	for (size_t i = 0; i < rq->nnotes; i++)
		if (vmb_params_add(&s->notes, &s->nnotes, rq->notes[i][0], rq->notes[i][1]) < 0)
			goto nomem;
	*suite = lab_host_suite_end(&res);
	return *suite ? 0 : errf(err, errlen, -ENOMEM, "out of memory");
nomem:
	vmb_results_release(&res);
	return errf(err, errlen, -ENOMEM, "out of memory");
}

/* In the order a configuration's run measures them (balloon before vmops,
 * which may move the guest to another QEMU). */
/* --suites balloon: a configuration with a balloon, whose mem holds
 * --balloon.size */
static int balloon_check(const struct lab_matrix *m, const json_t *run_opts, char *why, size_t len)
{
	bool any = false;

	for (size_t i = 0; i < m->n; i++) {
		uint64_t size;
		double timeout;
		int r;

		if (!lab_config_device(&m->configs[i], LAB_BALLOON))
			continue;
		any = true;
		if (m->configs[i].mem &&
		    (r = lab_balloon_opts(run_opts, m->configs[i].mem, &size, &timeout, why, len)) < 0)
			return r;
	}
	if (!any)
		return errf(why, len, -EINVAL, "--suites names balloon, and no configuration of the matrix has a balloon: "
			    "give the matrix key balloon=on (configurations with balloon=off skip it, saying so)");
	return 0;
}

/* boot.warm and boot.reboot: as many of each as --boots, in the first boot's QEMU */
static const struct lab_host_boot boot_boots[] = {
	{ BOOT_TEST_WARM, LAB_BOOT_WARM, BOOT_WARM },
	{ BOOT_TEST_REBOOT, LAB_BOOT_REBOOT, BOOT_REBOOT },
	{ NULL, 0, 0 },
};

const struct lab_host_row lab_host_rows[] = {
	{ .suite = &boot_suite, .when = LAB_HOST_BOOTS, .measure = boot_measure, .boots = boot_boots },
	{ .suite = &balloon_suite, .when = LAB_HOST_FIRST_BOOT, .measure = balloon_measure, .check = balloon_check },
	{ .suite = &vmops_suite, .when = LAB_HOST_FIRST_BOOT, .measure = vmops_measure },
	{ .suite = &contend_suite, .when = LAB_HOST_CONTEND, .measure = contend_measure },
#ifdef VMB_TEST_LAB
	/* the test build's toy (tests/toy/toylab.c; vmbench-toy compiles this file again) */
	{ .suite = &toyhost_suite, .when = LAB_HOST_FIRST_BOOT, .measure = toyhost_measure },
#endif
};
const size_t lab_host_nrows = sizeof(lab_host_rows) / sizeof(lab_host_rows[0]);

int lab_host_check(const struct vmb_suite *const *suites, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < lab_host_nrows; i++) {
		const struct lab_host_row *row = &lab_host_rows[i];
		const struct vmb_suite *s = row->suite;
		size_t k;

		for (k = 0; k < n && suites[k] != s; k++)
			;
		if (k == n)
			return errf(why, len, -EINVAL, "host-measured row %zu: its suite is not in the list of suites", i);
		if (!(s->flags & VMB_SUITE_LAB_ONLY))
			return errf(why, len, -EINVAL, "host-measured suite '%s' is not lab-only", s->name);
		if (!row->measure)
			return errf(why, len, -EINVAL, "host-measured suite '%s': its row lacks its measure function",
				    s->name);
		for (size_t j = 0; s->host && j < sizeof(s->host->loads) / sizeof(s->host->loads[0]) && s->host->loads[j];
		     j++) {
			const struct vmb_suite *l = lab_item_suite(s->host->loads[j]);
			const char *dot = strchr(s->host->loads[j], '.');
			bool test = !dot;

			for (size_t t = 0; l && dot && l->tests[t].name; t++)
				test |= !strcmp(l->tests[t].name, dot + 1);
			if (!l || !test || (l->flags & VMB_SUITE_LAB_ONLY))
				return errf(why, len, -EINVAL, "host-measured suite '%s': its load %s is no item a guest runs",
					    s->name, s->host->loads[j]);
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t rows = 0;

		for (size_t i = 0; i < lab_host_nrows; i++)
			rows += lab_host_rows[i].suite == suites[k];
		if ((suites[k]->flags & VMB_SUITE_LAB_ONLY) && rows != 1)
			return errf(why, len, -EINVAL, "lab-only suite '%s' has %zu rows in the lab's host-measured table, "
				    "not one", suites[k]->name, rows);
	}
	return 0;
}
