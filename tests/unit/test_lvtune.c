/* The libvirt row's tune (src/lab/hv_libvirt_tune.c) against a fake
 * libvirt whose scheduler parameters behave as libvirt's cgroup back ends
 * do (vircgroupv1.c, vircgroupv2.c): on cgroup v1 cpu_shares is cpu.shares
 * (2 to 262144, default 1024) and no cap reads back as -1; on cgroup v2
 * cpu_shares is cpu.weight (1 to 10000, default 100, refused outside) and
 * no cap ("max") reads back as ULLONG_MAX / 1000. No daemon, no libvirt
 * library: the row's functions come from lv_symbol, given here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/lab/hv_libvirt.h"
#include "../../src/core/banned.h"

/* -- the fake daemon's one domain, its cgroup -- */
static struct {
	int v2;
	unsigned long long shares, period;
	long long quota; /* < 0: no cap */
	char err[128];
} cg;

static void cg_reset(int v2)
{
	memset(&cg, 0, sizeof(cg));
	cg.v2 = v2;
	cg.shares = v2 ? 100 : 1024;
	cg.period = 100000;
	cg.quota = -1;
}

#define FAKE_DOM ((virDomainPtr)(uintptr_t)0x1)

static int fake_set(virDomainPtr d, virTypedParameterPtr p, int n, unsigned int flags)
{
	(void)d;
	(void)flags;
	for (int i = 0; i < n; i++) {
		if (!strcmp(p[i].field, VIR_DOMAIN_SCHEDULER_CPU_SHARES)) {
			unsigned long long v = p[i].value.ul;

			if (cg.v2 && (v < 1 || v > 10000)) {
				snprintf(cg.err, sizeof(cg.err), "shares '%llu' must be in range [1, 10000]", v);
				return -1;
			}
			/* cgroup v1's kernel clamps */
			cg.shares = cg.v2 ? v : v < 2 ? 2 : v > 262144 ? 262144 : v;
		} else if (!strcmp(p[i].field, VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD)) {
			if (p[i].value.ul)
				cg.period = p[i].value.ul;
		} else if (!strcmp(p[i].field, VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA)) {
			if (p[i].value.l) /* 0: left as it is */
				cg.quota = p[i].value.l < 0 ? -1 : p[i].value.l;
		}
	}
	return 0;
}

static char *fake_type(virDomainPtr d, int *n)
{
	(void)d;
	if (n)
		*n = 3;
	return strdup("posix");
}

static void put(virTypedParameterPtr p, const char *field, int type, unsigned long long ul, long long l)
{
	snprintf(p->field, sizeof(p->field), "%s", field);
	p->type = type;
	if (type == VIR_TYPED_PARAM_LLONG)
		p->value.l = l;
	else
		p->value.ul = ul;
}

static int fake_get(virDomainPtr d, virTypedParameterPtr p, int *n, unsigned int flags)
{
	(void)d;
	(void)flags;
	if (*n < 3)
		return -1;
	put(&p[0], VIR_DOMAIN_SCHEDULER_CPU_SHARES, VIR_TYPED_PARAM_ULLONG, cg.shares, 0);
	put(&p[1], VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD, VIR_TYPED_PARAM_ULLONG, cg.period, 0);
	put(&p[2], VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA, VIR_TYPED_PARAM_LLONG, 0,
	    cg.quota >= 0 ? cg.quota : cg.v2 ? (long long)(~0ULL / 1000) : -1);
	*n = 3;
	return 0;
}

static int find(virTypedParameterPtr p, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].field, name))
			return i;
	return -1;
}

static int fake_ull(virTypedParameterPtr p, int n, const char *name, unsigned long long *v)
{
	int i = find(p, n, name);

	if (i < 0)
		return 0;
	*v = p[i].value.ul;
	return 1;
}

static int fake_ll(virTypedParameterPtr p, int n, const char *name, long long *v)
{
	int i = find(p, n, name);

	if (i < 0)
		return 0;
	*v = p[i].value.l;
	return 1;
}

static int fake_uint(virTypedParameterPtr p, int n, const char *name, unsigned int *v)
{
	int i = find(p, n, name);

	if (i < 0)
		return 0;
	*v = p[i].value.ui;
	return 1;
}

static void fake_clear(virTypedParameterPtr p, int n)
{
	(void)p;
	(void)n;
}

/* what tune never calls: present, as the row requires every function */
static void fake_unused(void)
{
	fail_msg("a libvirt function tune does not call was called");
}

/* -- what hv_libvirt.c and hv_libvirt_conn.c give the tune file -- */
struct lab_hv_mon {
	unsigned long long first;
};

void *lv_symbol(const char *name)
{
	static const struct {
		const char *name;
		void (*f)(void);
	} fakes[] = {
		{ "virDomainSetSchedulerParametersFlags", (void (*)(void))fake_set },
		{ "virDomainGetSchedulerType", (void (*)(void))fake_type },
		{ "virDomainGetSchedulerParametersFlags", (void (*)(void))fake_get },
		{ "virTypedParamsGetULLong", (void (*)(void))fake_ull },
		{ "virTypedParamsGetLLong", (void (*)(void))fake_ll },
		{ "virTypedParamsGetUInt", (void (*)(void))fake_uint },
		{ "virTypedParamsClear", (void (*)(void))fake_clear },
	};
	void (*f)(void) = fake_unused;

	for (size_t i = 0; i < sizeof(fakes) / sizeof(fakes[0]); i++)
		if (!strcmp(fakes[i].name, name))
			f = fakes[i].f;
	return (void *)(uintptr_t)f;
}

virDomainPtr lv_domain(const char *name, char *why, size_t len)
{
	(void)name;
	(void)why;
	(void)len;
	return FAKE_DOM;
}

void lv_domain_free(virDomainPtr d)
{
	assert_ptr_equal(d, FAKE_DOM);
}

const char *lv_error(void)
{
	return cg.err[0] ? cg.err : "no message";
}

int lv_host_cpus(const char *name)
{
	(void)name;
	return 1;
}

const char *lv_mon_name(const struct lab_hv_mon *m)
{
	(void)m;
	return "vmbench-test";
}

unsigned long long *lv_mon_shares_first(struct lab_hv_mon *m)
{
	return &m->first;
}

/* -- the cases -- */

/* Each row a guest's cells, one after another on one domain: the policy's
 * weight and cap, and the cgroup's value after each */
static const struct {
	const char *what;
	int v2;
	struct {
		unsigned weight;
		unsigned long long quota_us;
		unsigned long long shares; /* what the cgroup holds after */
		long long quota;
	} cell[3];
} cases[] = {
	{ "v1: fair, no cap", 0, { { 1, 0, 1024, -1 } } },
	{ "v1: weight 3, then capped at 30 ms of 100", 0, { { 3, 0, 3072, -1 }, { 1, 30000, 1024, 30000 } } },
	{ "v1: the largest weight", 0, { { 100, 0, 102400, -1 } } },
	{ "v2: fair, no cap reads back as max", 1, { { 1, 0, 100, -1 } } },
	{ "v2: weight 3, capped, then the cap lifted", 1,
	  { { 3, 0, 300, -1 }, { 1, 30000, 100, 30000 }, { 1, 0, 100, -1 } } },
	{ "v2: the largest weight within cpu.weight's 10000", 1, { { 100, 0, 10000, -1 } } },
};

static void tune_follows_the_hierarchy(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_hv_mon m = { 0 };

		cg_reset(cases[i].v2);
		for (size_t k = 0; k < 3 && cases[i].cell[k].weight; k++) {
			char why[512] = "";
			int r = lv_tune(&m, cases[i].cell[k].weight, cases[i].cell[k].quota_us, 100000, why, sizeof(why));

			if (r != 0)
				fail_msg("%s, cell %zu: %d %s", cases[i].what, k + 1, r, why);
			assert_int_equal(cg.shares, cases[i].cell[k].shares);
			assert_int_equal(cg.quota, cases[i].cell[k].quota);
			assert_int_equal(cg.period, 100000);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tune_follows_the_hierarchy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
