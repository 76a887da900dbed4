/* lab contend's pure parts: policies, the shares each promises, the knobs
 * of each guest's group, the cgroup tree of N guests, schedstat and the
 * figures from it, the background load's duty cycle, and the hypervisor
 * tuner row driven through a fake back end's tune and vcpu_stat hooks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../src/core/bgload.h"
#include "../../src/lab/contend.h"
#include "../../src/lab/contend_int.h"
#include "../../src/lab/hv.h"

static void policies(void **state)
{
	(void)state;
	assert_int_equal(contend_policy_parse("fair"), CONTEND_FAIR);
	assert_int_equal(contend_policy_parse("weights"), CONTEND_WEIGHTS);
	assert_int_equal(contend_policy_parse("reservation"), CONTEND_RESERVATION);
	assert_int_equal(contend_policy_parse("rt"), CONTEND_RT);
	assert_int_equal(contend_policy_parse("Fair"), -EINVAL);
	assert_int_equal(contend_policy_parse(""), -EINVAL);
}

static void promised_shares(void **state)
{
	static const struct {
		enum contend_policy p;
		unsigned n, shares[4], reserve;
		double want[4];
	} cases[] = {
		{ CONTEND_FAIR, 3, { 1, 1, 2 }, 50, { 100.0 / 3, 100.0 / 3, 100.0 / 3 } },
		{ CONTEND_WEIGHTS, 3, { 1, 1, 2 }, 50, { 25, 25, 50 } },
		{ CONTEND_WEIGHTS, 2, { 1, 3 }, 50, { 25, 75 } },
		{ CONTEND_RESERVATION, 4, { 1, 1, 1, 1 }, 50, { 50, 50.0 / 3, 50.0 / 3, 50.0 / 3 } },
		{ CONTEND_RESERVATION, 2, { 1, 1 }, 70, { 70, 30 } },
		{ CONTEND_RT, 4, { 1, 1, 1, 1 }, 50, { 25, 25, 25, 25 } }, /* precedence, not a share */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct contend_spec s = { .nguests = cases[i].n, .reserve_pct = cases[i].reserve, .ncpus = 1 };
		double got[CONTEND_MAX_GUESTS];

		memcpy(s.shares, cases[i].shares, sizeof(cases[i].shares));
		assert_int_equal(contend_promised(cases[i].p, &s, got), 0);
		for (unsigned g = 0; g < cases[i].n; g++)
			assert_close(got[g], cases[i].want[g], 1e-9);
	}
	{
		struct contend_spec bad = { .nguests = 1, .shares = { 1 }, .reserve_pct = 50, .ncpus = 1 };
		double got[CONTEND_MAX_GUESTS];

		assert_int_equal(contend_promised(CONTEND_FAIR, &bad, got), -EINVAL);     /* one guest */
		bad.nguests = 2;
		bad.shares[1] = 0;
		assert_int_equal(contend_promised(CONTEND_WEIGHTS, &bad, got), -EINVAL);  /* a weight of 0 */
		bad.shares[1] = 1;
		bad.reserve_pct = 100;
		assert_int_equal(contend_promised(CONTEND_RESERVATION, &bad, got), -EINVAL); /* nothing left */
		bad.reserve_pct = 50;
		bad.nguests = CONTEND_MAX_GUESTS + 1;
		assert_int_equal(contend_promised(CONTEND_FAIR, &bad, got), -EINVAL);
	}
}

/* What each guest can have: the promise held at what its vCPUs can take
 * (100 x vCPUs / host CPUs), the rest to the others as the policy gives. */
static void expected_shares(void **state)
{
	static const struct {
		enum contend_policy p;
		unsigned n, shares[4], reserve, ncpus, vcpus;
		double want[4];
	} cases[] = {
		/* one CPU: no guest is bound, the promise as it is */
		{ CONTEND_WEIGHTS, 3, { 1, 1, 2 }, 50, 1, 1, { 25, 25, 50 } },
		/* unknown vCPUs: no bound */
		{ CONTEND_WEIGHTS, 2, { 1, 3 }, 50, 2, 0, { 25, 75 } },
		/* two CPUs, one vCPU each (50% at most): 1:3 cannot give 75%, both get 50 */
		{ CONTEND_WEIGHTS, 2, { 1, 3 }, 50, 2, 1, { 50, 50 } },
		/* 1:1:4 on two CPUs: guest 3 held at 50, the other half shared 1:1 */
		{ CONTEND_WEIGHTS, 3, { 1, 1, 4 }, 50, 2, 1, { 25, 25, 50 } },
		/* 1:2:5 on four CPUs (25% each at most): guest 3, then 2, then 1 held at the bound */
		{ CONTEND_WEIGHTS, 3, { 1, 2, 5 }, 50, 4, 1, { 25, 25, 25 } },
		/* fair with more CPUs than vCPUs: each its bound */
		{ CONTEND_FAIR, 2, { 1, 1 }, 50, 4, 1, { 25, 25 } },
		{ CONTEND_RT, 4, { 1, 1, 1, 1 }, 50, 2, 1, { 25, 25, 25, 25 } },
		/* the reservation: guest 1's 70% of two CPUs is more than one vCPU takes; the others stay capped */
		{ CONTEND_RESERVATION, 2, { 1, 1 }, 70, 2, 1, { 50, 30 } },
		{ CONTEND_RESERVATION, 3, { 1, 1, 1 }, 50, 2, 2, { 50, 25, 25 } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct contend_spec s = { .nguests = cases[i].n, .reserve_pct = cases[i].reserve, .ncpus = cases[i].ncpus,
					  .vcpus = cases[i].vcpus };
		double got[CONTEND_MAX_GUESTS], sum = 0;

		memcpy(s.shares, cases[i].shares, sizeof(cases[i].shares));
		assert_int_equal(contend_expected(cases[i].p, &s, got), 0);
		for (unsigned g = 0; g < cases[i].n; g++) {
			assert_close(got[g], cases[i].want[g], 1e-9);
			sum += got[g];
		}
		assert_true(sum <= 100 + 1e-9);
	}
}

static void knobs(void **state)
{
	struct contend_spec s = { .nguests = 4, .shares = { 1, 1, 1, 2 }, .reserve_pct = 50, .ncpus = 1 };
	struct cg_knob k[CONTEND_MAX_GUESTS];

	(void)state;
	assert_int_equal(contend_knobs(CONTEND_FAIR, &s, 100000, k), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(k[i].weight, 1);
		assert_int_equal(k[i].quota_us, 0);
	}
	assert_int_equal(contend_knobs(CONTEND_WEIGHTS, &s, 100000, k), 0);
	assert_int_equal(k[0].weight, 1);
	assert_int_equal(k[3].weight, 2);
	assert_int_equal(k[3].quota_us, 0);
	/* the reservation: guest 1 uncapped, the others a third of the other half each */
	assert_int_equal(contend_knobs(CONTEND_RESERVATION, &s, 100000, k), 0);
	assert_int_equal(k[0].quota_us, 0);
	assert_int_equal(k[1].quota_us, 16666);
	assert_int_equal(k[3].quota_us, 16666);
	/* on two host CPUs the quota may exceed the period */
	s.ncpus = 2;
	s.reserve_pct = 20;
	s.nguests = 2;
	assert_int_equal(contend_knobs(CONTEND_RESERVATION, &s, 100000, k), 0);
	assert_int_equal(k[1].quota_us, 160000);
	/* under the kernel's least quota (1 ms) the cap would be above the
	 * promise (99% leaves 1/7% of a CPU, 14 us of 10 ms): refused, and the
	 * most reserve that fits said */
	s.ncpus = 1;
	s.reserve_pct = 99;
	s.nguests = 8;
	for (unsigned i = 0; i < 8; i++)
		s.shares[i] = 1;
	assert_int_equal(contend_knobs(CONTEND_RESERVATION, &s, 10000, k), -ERANGE);
	assert_int_equal(contend_knobs(CONTEND_RESERVATION, &s, 100000, k), -ERANGE);
	assert_int_equal(contend_reserve_max(&s, 100000), 93);
	s.reserve_pct = 93;
	assert_int_equal(contend_knobs(CONTEND_RESERVATION, &s, 100000, k), 0);
	assert_int_equal(k[7].quota_us, 1000);
	s.ncpus = 2;
	assert_int_equal(contend_reserve_max(&s, 100000), 96);
	s.nguests = 2;
	assert_int_equal(contend_reserve_max(&s, 100000), 99);
	s.nguests = 8;
	s.ncpus = 1;
	assert_int_equal(contend_knobs(CONTEND_FAIR, &s, 999, k), -EINVAL);
	assert_int_equal(contend_knobs(CONTEND_RT, &s, 100000, k), 0);
	assert_int_equal(k[0].quota_us, 0);
}

static char *plan_text(const struct cg_plan *p)
{
	static const char *const kinds[] = { [CG_MKDIR] = "mkdir", [CG_WRITE] = "write", [CG_RMDIR] = "rmdir" };
	size_t cap = 64 * 1024, off = 0;
	char *s = calloc(1, cap);

	assert_non_null(s);
	for (size_t i = 0; i < p->n; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s %s%s%s\n", kinds[p->ops[i].kind], p->ops[i].path,
					p->ops[i].kind == CG_WRITE ? " " : "", p->ops[i].value);
	return s;
}

/* The tree of N guests (no probe's group, the RT runtime to guest 1's),
 * and each policy's knobs on it, as the steps a plan holds. */
static void tree_plans(void **state)
{
	static const struct {
		enum cg_version ver;
		bool rt;
		unsigned n;
		int what; /* 0 create, 1 knobs of the reservation, 2 remove */
		const char *want;
	} cases[] = {
		{ CG_V1, true, 3, 0,
		  "mkdir /m/vmbench-contend-42\n"
		  "write /m/vmbench-contend-42/cpu.rt_runtime_us 0\n"
		  "mkdir /m/vmbench-contend-42/g0\n"
		  "write /m/vmbench-contend-42/g0/cpu.rt_runtime_us 0\n"
		  "mkdir /m/vmbench-contend-42/g1\n"
		  "mkdir /m/vmbench-contend-42/g2\n" },
		{ CG_V2, false, 2, 0, /* domains for whole QEMUs: not threaded, this process stays */
		  "write /m/cgroup.subtree_control +cpu\n"
		  "mkdir /m/vmbench-contend-42\n"
		  "mkdir /m/vmbench-contend-42/g0\n"
		  "mkdir /m/vmbench-contend-42/g1\n"
		  "write /m/vmbench-contend-42/cgroup.subtree_control +cpu\n" },
		{ CG_V2, false, 2, 2,
		  "rmdir /m/vmbench-contend-42/g0\n"
		  "rmdir /m/vmbench-contend-42/g1\n"
		  "rmdir /m/vmbench-contend-42\n" },
		{ CG_V1, false, 3, 1,
		  "write /m/vmbench-contend-42/g0/cpu.shares 1024\n"
		  "write /m/vmbench-contend-42/g0/cpu.cfs_period_us 100000\n"
		  "write /m/vmbench-contend-42/g0/cpu.cfs_quota_us -1\n"
		  "write /m/vmbench-contend-42/g1/cpu.shares 1024\n"
		  "write /m/vmbench-contend-42/g1/cpu.cfs_period_us 100000\n"
		  "write /m/vmbench-contend-42/g1/cpu.cfs_quota_us 25000\n"
		  "write /m/vmbench-contend-42/g2/cpu.shares 1024\n"
		  "write /m/vmbench-contend-42/g2/cpu.cfs_period_us 100000\n"
		  "write /m/vmbench-contend-42/g2/cpu.cfs_quota_us 25000\n" },
		{ CG_V2, false, 2, 1,
		  "write /m/vmbench-contend-42/g0/cpu.weight 100\n"
		  "write /m/vmbench-contend-42/g0/cpu.max max 100000\n"
		  "write /m/vmbench-contend-42/g1/cpu.weight 100\n"
		  "write /m/vmbench-contend-42/g1/cpu.max 50000 100000\n" },
		{ CG_V1, true, 2, 2,
		  "rmdir /m/vmbench-contend-42/g0\n"
		  "rmdir /m/vmbench-contend-42/g1\n"
		  "rmdir /m/vmbench-contend-42\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cg_layout l = { .ver = cases[i].ver, .mount = "/m", .rt_group = cases[i].rt,
				       .tree = "vmbench-contend", .no_probe = true };
		struct contend_spec s = { .nguests = cases[i].n, .shares = { 1, 1, 1 }, .reserve_pct = 50, .ncpus = 1 };
		struct cg_knob k[CONTEND_MAX_GUESTS];
		struct cg_plan p;
		char *text;
		int r = -1;

		cg_plan_init(&p);
		switch (cases[i].what) {
		case 0:
			r = cg_plan_create(&p, &l, 42, cases[i].n, 0);
			break;
		case 1:
			r = contend_knobs(CONTEND_RESERVATION, &s, CONTEND_PERIOD_US, k);
			if (r == 0)
				r = cg_plan_knobs(&p, &l, 42, k, cases[i].n, CONTEND_PERIOD_US);
			break;
		case 2:
			r = cg_plan_remove(&p, &l, 42, cases[i].n);
			break;
		}
		assert_int_equal(r, 0);
		text = plan_text(&p);
		if (strcmp(text, cases[i].want))
			fail_msg("case %zu:\n%s\nexpected:\n%s", i, text, cases[i].want);
		free(text);
		cg_plan_release(&p);
	}
	{
		/* eight guests fit, nine do not */
		struct cg_layout l = { .ver = CG_V1, .mount = "/m", .tree = "vmbench-contend", .no_probe = true };
		struct cg_knob k[CG_MAX_GROUPS + 1] = { { .weight = 1, .quota_us = 0 } };
		struct cg_plan p;

		cg_plan_init(&p);
		assert_int_equal(cg_plan_create(&p, &l, 1, CG_MAX_GROUPS, 0), 0);
		assert_int_equal(cg_plan_create(&p, &l, 1, CG_MAX_GROUPS + 1, 0), -EINVAL);
		assert_int_equal(cg_plan_knobs(&p, &l, 1, k, 1, 100000), 0);
		k[0].weight = 0;
		assert_int_equal(cg_plan_knobs(&p, &l, 1, k, 1, 100000), -EINVAL);
		k[0].weight = 1;
		k[0].quota_us = 999;
		assert_int_equal(cg_plan_knobs(&p, &l, 1, k, 1, 100000), -EINVAL);
		cg_plan_release(&p);
	}
}

static void schedstat(void **state)
{
	static const struct {
		const char *text;
		int r;
		unsigned long long cpu, wait, slices;
	} cases[] = {
		{ "123 456 7\n", 0, 123, 456, 7 },
		{ "0 0 0", 0, 0, 0, 0 },
		{ "18446744073709551615 1 2\n", 0, 18446744073709551615ull, 1, 2 },
		{ "18446744073709551616 1 2\n", -EINVAL, 0, 0, 0 }, /* over 64 bits */
		{ "1 2\n", -EINVAL, 0, 0, 0 },
		{ "1 2 3 4\n", -EINVAL, 0, 0, 0 },
		{ "-1 2 3\n", -EINVAL, 0, 0, 0 },
		{ "1  2 3\n", -EINVAL, 0, 0, 0 },
		{ " 1 2 3\n", -EINVAL, 0, 0, 0 },
		{ "1 2 3\n\n", -EINVAL, 0, 0, 0 },
		{ "a b c\n", -EINVAL, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct contend_sched s = { 9, 9, 9 };

		assert_int_equal(contend_parse_schedstat(cases[i].text, &s), cases[i].r);
		if (cases[i].r == 0) {
			assert_true(s.cpu_ns == cases[i].cpu && s.wait_ns == cases[i].wait && s.slices == cases[i].slices);
		} else {
			assert_true(s.cpu_ns == 9 && s.wait_ns == 9 && s.slices == 9); /* untouched */
		}
	}
}

static void figures(void **state)
{
	const struct contend_sched a = { 1000000000ull, 500000000ull, 100 };
	struct contend_sched b = { 1500000000ull, 1500000000ull, 600 };
	struct contend_figures f = { 0 };

	(void)state;
	/* 0.5 s of CPU over 2 s on one host CPU: 25%; 1 s waited: 50% of the window (%RDY), 2 ms per slice */
	assert_int_equal(contend_figures(&a, &b, 2.0, 1, &f), 0);
	assert_close(f.share_pct, 25, 1e-9);
	assert_close(f.delay_pct, 50, 1e-9);
	assert_close(f.delay_ns_per_slice, 2e6, 1e-6);
	/* the same on two host CPUs: half the share */
	assert_int_equal(contend_figures(&a, &b, 2.0, 2, &f), 0);
	assert_close(f.share_pct, 12.5, 1e-9);
	/* no timeslice: no delay per slice */
	b.slices = a.slices;
	assert_int_equal(contend_figures(&a, &b, 2.0, 1, &f), 0);
	assert_true(isnan(f.delay_ns_per_slice));
	/* a counter that ran backwards, no time, no CPU: not measured */
	assert_int_equal(contend_figures(&b, &a, 2.0, 1, &f), -EINVAL);
	assert_int_equal(contend_figures(&a, &b, 0, 1, &f), -EINVAL);
	assert_int_equal(contend_figures(&a, &b, NAN, 1, &f), -EINVAL);
	assert_int_equal(contend_figures(&a, &b, 1, 0, &f), -EINVAL);
	/* more CPU time than the window holds on the CPUs given: not a share, not stored */
	b.cpu_ns = a.cpu_ns + 2000000001ull;
	f.share_pct = -1;
	assert_int_equal(contend_figures(&a, &b, 2.0, 1, &f), -ERANGE);
	assert_close(f.share_pct, -1, 0);
	b.cpu_ns = a.cpu_ns + 2000000000ull;
	assert_int_equal(contend_figures(&a, &b, 2.0, 1, &f), 0);
	assert_close(f.share_pct, 100, 1e-9);
	/* two vCPU threads each waiting the whole window: 200%, as esxtop sums a VM's vCPUs */
	b.wait_ns = a.wait_ns + 4000000000ull;
	assert_int_equal(contend_figures(&a, &b, 2.0, 1, &f), 0);
	assert_close(f.delay_pct, 200, 1e-9);
}

static void load_duty(void **state)
{
	(void)state;
	assert_int_equal(bgload_busy_ns(0), 0);
	assert_int_equal(bgload_busy_ns(50), 5000000);
	assert_int_equal(bgload_busy_ns(95), 9500000);
	assert_int_equal(bgload_busy_ns(100), BGLOAD_PERIOD_NS);
	assert_int_equal(bgload_busy_ns(250), BGLOAD_PERIOD_NS);
}

/* -- the hypervisor tuner row, through a fake back end -- */
struct lab_hv_mon {
	unsigned guest;
};

static struct {
	unsigned weight[4];
	unsigned long long quota[4];
	unsigned period[4], calls;
	unsigned long long cpu, wait;
	bool exact;
} tuned;

static int f_tune(struct lab_hv_mon *m, unsigned weight, unsigned long long quota_us, unsigned period_us, char *why,
		  size_t len)
{
	(void)why, (void)len;
	tuned.weight[m->guest] = weight;
	tuned.quota[m->guest] = quota_us;
	tuned.period[m->guest] = period_us;
	tuned.calls++;
	return 0;
}

static int f_vcpu_stat(struct lab_hv_mon *m, unsigned long long *cpu_ns, unsigned long long *wait_ns, bool *exact,
		       char *why, size_t len)
{
	(void)why, (void)len;
	*cpu_ns = tuned.cpu + m->guest;
	*wait_ns = tuned.wait;
	*exact = tuned.exact;
	return 0;
}

static void hv_tuner(void **state)
{
	struct lab_hv_ops row = lab_hv_qemu;
	const struct lab_hv_ops *was = lab_hv_default();
	struct contend_opts o = { .spec = { .nguests = 3, .shares = { 1, 1, 2 }, .reserve_pct = 50, .ncpus = 2 } };
	struct contend *x = calloc(1, sizeof(*x));
	struct lab_hv_mon mons[3] = { { 0 }, { 1 }, { 2 } };
	struct contend_sched sum;
	char err[256], skips[512];

	(void)state;
	assert_non_null(x);
	/* the QEMU row: lab contend's own cgroups, rt carried */
	assert_null(contend_policy_unsupported(CONTEND_RT));
	contend_plan_skips("fair,rt", skips, sizeof(skips));
	assert_string_equal(skips, "");
	row.tune = f_tune;
	row.vcpu_stat = f_vcpu_stat;
	lab_hv_set_default(&row);
	x->o = &o;
	for (unsigned i = 0; i < 3; i++)
		x->gs[i].mon = &mons[i], x->gs[i].idx = i;
	/* rt cannot be carried: said by the plan and skipped at the start */
	contend_plan_skips("fair,rt,weights", skips, sizeof(skips));
	assert_non_null(strstr(skips, "rt: skipped here: through libvirt, a real-time scheduler"));
	assert_null(strstr(skips, "fair"));
	contend_tune_hv.prepare(x);
	assert_non_null(x->why[CONTEND_RT]);
	assert_null(x->why[CONTEND_FAIR]);
	assert_null(x->why[CONTEND_RESERVATION]);
	/* weights 1:1:2 as relative weights, no cap */
	assert_int_equal(contend_tune_hv.knobs(x, CONTEND_WEIGHTS, err, sizeof(err)), 0);
	assert_int_equal(tuned.calls, 3);
	assert_int_equal(tuned.weight[0], 1);
	assert_int_equal(tuned.weight[2], 2);
	assert_true(tuned.quota[0] == 0 && tuned.quota[1] == 0 && tuned.quota[2] == 0);
	/* the reservation: guest 1 uncapped, the others each a quarter of 2
	 * CPUs, 50 ms of every 100 ms */
	assert_int_equal(contend_tune_hv.knobs(x, CONTEND_RESERVATION, err, sizeof(err)), 0);
	assert_true(tuned.quota[0] == 0 && tuned.quota[1] == 50000 && tuned.quota[2] == 50000);
	assert_int_equal(tuned.period[1], CONTEND_PERIOD_US);
	assert_int_equal(tuned.weight[1], 1);
	/* the counters: CPU and run delay from the hook, no timeslices; a CPU
	 * time in ticks is noted */
	tuned.cpu = 5000, tuned.wait = 700, tuned.exact = true;
	assert_int_equal(contend_tune_hv.sample(x, &x->gs[2], &sum), 0);
	assert_true(sum.cpu_ns == 5002 && sum.wait_ns == 700 && sum.slices == 0);
	assert_false(x->ticks);
	tuned.exact = false;
	assert_int_equal(contend_tune_hv.sample(x, &x->gs[0], &sum), 0);
	assert_true(x->ticks);
	/* a row without vcpu_stat: every policy skipped with its reason */
	{
		struct contend *y = calloc(1, sizeof(*y));

		assert_non_null(y);
		row.vcpu_stat = NULL;
		y->o = &o;
		contend_tune_hv.prepare(y);
		for (int p = 0; p < CONTEND_NPOLICIES; p++)
			assert_non_null(y->why[p]);
		free(y);
	}
	for (unsigned i = 0; i < 3; i++)
		x->gs[i].mon = NULL; /* the test's own, not the row's to close */
	lab_hv_set_default(was);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(policies),
		cmocka_unit_test(promised_shares),
		cmocka_unit_test(expected_shares),
		cmocka_unit_test(knobs),
		cmocka_unit_test(tree_plans),
		cmocka_unit_test(schedstat),
		cmocka_unit_test(figures),
		cmocka_unit_test(load_duty),
		cmocka_unit_test(hv_tuner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
