/* vmbench lab: the plan of a lab run or a lab contend (--plan, and the
 * same lines before a run starts): its configurations, rounds, boots and an
 * estimated time, and the estimate a study's plan makes of each of its
 * experiments (lab_study_plan.c) from the same functions. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "lab.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/runner.h"
#include "../core/str.h"
#include "../lab/contend.h"
#include "../lab/hv.h"
#include "../lab/matrix.h"
#include "../suites/suites.h"
#include "../core/banned.h"

/* --rounds auto's rounds unless a study sets its own least: the fewest
 * that judge a difference (a minimal detectable difference needs two) */
#define LAB_AUTO_ROUNDS_LEAST 2

double lab_boot_estimate(const struct lab_config *c)
{
	const struct lab_image_row *img = lab_config_image(c);

	return img ? img->boot_s : lab_images[0].boot_s;
}

void lab_round_estimate(const struct lab_matrix *m, bool host, unsigned boots, const struct runner_estimate *est,
			double *lo, double *hi)
{
	double runs = (double)m->n + (host ? 1 : 0), boot = 0;

	for (size_t i = 0; i < m->n; i++)
		boot += lab_boot_estimate(&m->configs[i]) * boots;
	*lo = runs * est->min_s + boot;
	*hi = runs * est->max_s + boot;
}

void lab_contend_estimate(const struct lab_matrix *m, unsigned guests, unsigned cells, unsigned rounds,
			  const struct runner_estimate *est, double *lo, double *hi)
{
	double boot = m->n ? lab_boot_estimate(&m->configs[0]) * guests : 0;

	*lo = (double)cells * rounds * est->min_s + boot;
	*hi = (double)cells * rounds * est->max_s + boot;
}

void lab_minutes(double s, char *buf, size_t len)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60);
}

void lab_estimate_basis(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	str_appendf(buf, len, &off, "a boot as the lab's images take under TCG:");
	for (size_t i = 0; i < lab_nimages; i++)
		str_appendf(buf, len, &off, "%s %s %u s", i ? "," : "", lab_images[i].name, lab_images[i].boot_s);
	str_appendf(buf, len, &off, "; the suites by their stop rule, as 'vmbench list' estimates; a guest's set-up "
		    "and a slow emulation add to it");
}

/* One line of the plan: on stdout (--plan: the plan is the output), else a
 * message on stderr, so that stdout keeps only the tables (or -o -'s HTML) */
static void say(bool out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(bool out, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (out)
		printf("%s\n", line);
	else
		log_info("%s", line);
}

/* The count of a comma-separated list ("fair,rt" 2) */
static unsigned list_count(const char *s)
{
	unsigned n = s && *s ? 1 : 0;

	for (; s && *s; s++)
		n += *s == ',';
	return n;
}

static const char *plural(double n)
{
	return n == 1 ? "" : "s";
}

/* The suites' line and the estimate's: lo to hi seconds, how its bounds
 * were reached (bound: "" or words ending in "; ") and what it assumes */
static void say_estimate(bool out, const char *suites, const struct runner_estimate *est, const char *per,
			 const char *each, double lo, double hi, const char *bound)
{
	char a[32], b[32], basis[512];

	lab_minutes(est->min_s, a, sizeof(a));
	lab_minutes(est->max_s, b, sizeof(b));
	say(out, "  suites %s: %zu case%s %s, %s to %s each%s", suites, est->ncases,
	    plural((double)est->ncases), per, a, b, each);
	lab_minutes(lo, a, sizeof(a));
	lab_minutes(hi, b, sizeof(b));
	lab_estimate_basis(basis, sizeof(basis));
	say(out, "  estimated: %s to %s (%s%s)", a, b, bound, basis);
}

static void plan_run(const struct lab *l, const struct lab_matrix *m, const struct runner_estimate *est, bool out)
{
	const struct lab_request *rq = l->rq;
	const char *base = lab_baseline_spec(rq);
	/* over several hosts, one host's process measures this machine for all */
	bool host = strcmp(base, "none") != 0 && !rq->fleet_host_by;
	char against[600];
	unsigned boots = rq->boots ? rq->boots : 1, least = rq->min_rounds ? rq->min_rounds : LAB_AUTO_ROUNDS_LEAST;
	double lo, hi, n = (double)m->n * boots;

	if (!strcmp(base, LAB_HOST) && rq->fleet_host_by)
		snprintf(against, sizeof(against), "the host (measured by %s's process)", rq->fleet_host_by);
	else
		snprintf(against, sizeof(against), "%s",
			 !strcmp(base, LAB_HOST) ? "the host" : !strcmp(base, "none") ? "the first configuration" : base);
	lab_round_estimate(m, host, boots, est, &lo, &hi);
	if (l->autorounds) {
		double budget = optset_double(l->own, "budget-total");

		say(out, "plan: %zu configuration%s x %u to %u rounds (--rounds auto) x %u boot%s = %.0f to %.0f boots%s; "
		    "against %s", m->n, plural((double)m->n), least, l->rounds, boots, plural(boots), n * least,
		    n * l->rounds, host ? ", and the host measured each round" : "", against);
		/* the budget stops it from the first round on, but not before a study's least */
		lo = rq->min_rounds ? lo * least : fmin(lo * least, fmax(lo, budget));
		hi = fmax(hi * (rq->min_rounds ? least : 1), fmin(hi * l->rounds, budget));
	} else {
		say(out, "plan: %zu configuration%s x %u round%s x %u boot%s = %.0f boot%s%s; against %s", m->n,
		    plural((double)m->n), l->rounds, plural(l->rounds), boots, plural(boots), n * l->rounds,
		    plural(n * l->rounds), host ? ", and the host measured each round" : "", against);
		lo *= l->rounds;
		hi *= l->rounds;
	}
	for (size_t i = 0; i < m->n; i++) {
		char name[256], why[512];

		lab_config_name(m, &m->configs[i], name, sizeof(name));
		if (lab_hv_config_unsupported(&m->configs[i], why, sizeof(why)))
			say(out, "    %s (skipped here: %s)", name, why);
		else
			say(out, "    %s", name);
	}
	if (l->autorounds)
		say(out, "  rounds: --rounds auto, at least %u%s, at most %u: stopped by its rule (--mdd %g%%) or before "
		    "a round that would end after --budget-total %g s", least,
		    rq->min_rounds ? " (the study's)" : " (the fewest that judge a difference)", l->rounds,
		    optset_double(l->own, "mdd"), optset_double(l->own, "budget-total"));
	say_estimate(out, l->suites, est, "a run", "", lo, hi,
		     l->autorounds ? "from the least rounds to --budget-total or the most rounds; " : "");
}

static void plan_contend(const struct lab *l, const struct lab_matrix *m, const struct runner_estimate *est, bool out)
{
	unsigned guests = (unsigned)optset_int(l->own, "guests");
	unsigned cells = list_count(optset_str(l->own, "policy")) * list_count(optset_str(l->own, "load"));
	char name[256], skips[1024];
	double lo, hi;

	lab_config_name(m, &m->configs[0], name, sizeof(name));
	lab_contend_estimate(m, guests, cells, l->rounds, est, &lo, &hi);
	say(out, "plan: %u guests of one configuration at once (%s), booted once = %u boots; %u cell%s (policies %s x "
	    "loads %s) x %u round%s", guests, name, guests, cells, plural(cells), optset_str(l->own, "policy"),
	    optset_str(l->own, "load"), l->rounds, plural(l->rounds));
	contend_plan_skips(optset_str(l->own, "policy"), skips, sizeof(skips));
	if (*skips)
		say(out, "  %s", skips);
	say_estimate(out, l->suites, est, "a cell", " (the guests share the host CPUs: longer under contention)", lo,
		     hi, "");
}

int lab_plan(const struct lab *l, struct lab_request *rq, const struct lab_matrix *m, bool out)
{
	struct runner_estimate est = { 0 };

	/* the guests apply --quick to the suites' options themselves: the estimate, here */
	for (size_t i = 0; rq->quick && i < vmb_nsuites; i++)
		if (optset_apply_quick(&rq->suite_sets[i]) < 0)
			return log_errno(-EINVAL, "--quick");
	if (run_estimate_items(l->suites, &rq->own, rq->suite_sets, rq->quick, &est) < 0)
		return log_errno(-EINVAL, "--suites %s: estimating its items", l->suites);
	if (rq->verb == LAB_VERB_CONTEND)
		plan_contend(l, m, &est, out);
	else
		plan_run(l, m, &est, out);
	if (out)
		fflush(stdout);
	return 0;
}

int lab_plan_first(const struct lab *l, struct lab_request *rq, const struct lab_matrix *m)
{
	/* --plan's output, else said as the run starts (a study said its own) */
	if ((l->plan || !rq->from_study) && lab_plan(l, rq, m, l->plan) < 0)
		return EXIT_FAILED;
	return l->plan ? EXIT_OK : CMD_CONTINUE;
}
