/* lab contend's pure parts (see contend.h): the policies, the shares each
 * promises and each guest can have, the cgroup knobs that carry a policy
 * out, and the host's figures from schedstat; no I/O, for unit tests. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "contend.h"
#include "../core/banned.h"

const char *const contend_policy_names[CONTEND_NPOLICIES] = { "fair", "weights", "reservation", "rt" };

int contend_policy_parse(const char *name)
{
	for (int i = 0; i < CONTEND_NPOLICIES; i++)
		if (!strcmp(name, contend_policy_names[i]))
			return i;
	return -EINVAL;
}

static bool spec_valid(const struct contend_spec *s)
{
	if (s->nguests < 2 || s->nguests > CONTEND_MAX_GUESTS || s->ncpus < 1 || s->reserve_pct < 1 ||
	    s->reserve_pct > 99)
		return false;
	for (unsigned i = 0; i < s->nguests; i++)
		if (s->shares[i] < 1 || s->shares[i] > 100)
			return false;
	return true;
}

int contend_promised(enum contend_policy p, const struct contend_spec *s, double *promised)
{
	unsigned sum = 0;

	if (!spec_valid(s) || p < 0 || p >= CONTEND_NPOLICIES)
		return -EINVAL;
	for (unsigned i = 0; i < s->nguests; i++)
		sum += s->shares[i];
	for (unsigned i = 0; i < s->nguests; i++) {
		switch (p) {
		case CONTEND_WEIGHTS:
			promised[i] = 100.0 * s->shares[i] / sum;
			break;
		case CONTEND_RESERVATION:
			promised[i] = i == 0 ? s->reserve_pct : (100.0 - s->reserve_pct) / (s->nguests - 1);
			break;
		default:
			promised[i] = 100.0 / s->nguests;
			break;
		}
	}
	return 0;
}

int contend_expected(enum contend_policy p, const struct contend_spec *s, double *share)
{
	double promised[CONTEND_MAX_GUESTS], bound, left = 100;
	bool held[CONTEND_MAX_GUESTS] = { false };
	int r = contend_promised(p, s, promised);

	if (r < 0)
		return r;
	bound = s->vcpus ? 100.0 * s->vcpus / s->ncpus : 100;
	if (p == CONTEND_RESERVATION) {
		for (unsigned i = 0; i < s->nguests; i++)
			share[i] = promised[i] < bound ? promised[i] : bound;
		return 0;
	}
	/* water-filling: at most one guest is held at its bound a pass */
	for (unsigned pass = 0; pass <= s->nguests; pass++) {
		double wsum = 0;
		bool again = false;

		for (unsigned i = 0; i < s->nguests; i++)
			if (!held[i])
				wsum += p == CONTEND_WEIGHTS ? s->shares[i] : 1;
		for (unsigned i = 0; i < s->nguests; i++) {
			if (held[i])
				continue;
			share[i] = wsum > 0 ? left * (p == CONTEND_WEIGHTS ? s->shares[i] : 1) / wsum : 0;
			if (!again && share[i] > bound) {
				share[i] = bound;
				held[i] = true;
				left -= bound;
				again = true;
			}
		}
		if (!again)
			break;
	}
	return 0;
}

int contend_knobs(enum contend_policy p, const struct contend_spec *s, unsigned period_us, struct cg_knob *k)
{
	double promised[CONTEND_MAX_GUESTS];

	if (period_us < 1000 || period_us > 1000000 || contend_promised(p, s, promised) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < s->nguests; i++) {
		k[i].weight = p == CONTEND_WEIGHTS ? s->shares[i] : 1;
		k[i].quota_us = 0;
		if (p == CONTEND_RESERVATION && i > 0) {
			/* each other guest's part of the rest of the CPUs given, per period */
			unsigned long long q = (unsigned long long)(promised[i] / 100 * s->ncpus * period_us);

			/* under the kernel's least (1 ms) the cap would be above the promise */
			if (q < 1000)
				return -ERANGE;
			k[i].quota_us = q;
		}
	}
	return 0;
}

unsigned contend_reserve_max(const struct contend_spec *s, unsigned period_us)
{
	struct contend_spec t = *s;
	struct cg_knob k[CONTEND_MAX_GUESTS];

	for (t.reserve_pct = 99; t.reserve_pct >= 1; t.reserve_pct--)
		if (contend_knobs(CONTEND_RESERVATION, &t, period_us, k) == 0)
			return t.reserve_pct;
	return 0;
}

int contend_parse_schedstat(const char *text, struct contend_sched *out)
{
	unsigned long long v[3];
	const char *p = text;

	for (int i = 0; i < 3; i++) {
		char *end;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[i] = strtoull(p, &end, 10);
		if (errno || end == p)
			return -EINVAL;
		p = end;
		if (i < 2 && *p++ != ' ')
			return -EINVAL;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	out->cpu_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
}

int contend_figures(const struct contend_sched *a, const struct contend_sched *b, double wall_s, unsigned ncpus,
		    struct contend_figures *out)
{
	double cpu, wait, slices;

	if (!(wall_s > 0) || !isfinite(wall_s) || ncpus == 0 || b->cpu_ns < a->cpu_ns || b->wait_ns < a->wait_ns ||
	    b->slices < a->slices)
		return -EINVAL;
	cpu = (double)(b->cpu_ns - a->cpu_ns);
	wait = (double)(b->wait_ns - a->wait_ns);
	slices = (double)(b->slices - a->slices);
	if (100 * cpu / 1e9 / (wall_s * ncpus) > 100)
		return -ERANGE;
	out->share_pct = 100 * cpu / 1e9 / (wall_s * ncpus);
	out->delay_pct = 100 * wait / 1e9 / wall_s;
	out->delay_ns_per_slice = slices > 0 ? wait / slices : NAN;
	return 0;
}
