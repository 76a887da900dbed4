/* The libvirt row's share of the host for lab contend (hv.h's tune,
 * vcpu_stat and confine): libvirt's own scheduler parameters on the
 * domain's cgroup (cpu_shares, global_period and global_quota, the whole
 * domain's as lab contend's own cgroup per guest is the whole QEMU's), its
 * vCPU statistics (the vCPUs' time on a CPU from the per-CPU accounting of
 * their cgroups, their run delay from each thread's schedstat, as the
 * direct path reads them) and its pinning calls. The functions come from
 * the libvirt the connection opened (dlsym), looked up once. */
#include <errno.h>
#include <libvirt/libvirt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv.h"
#include "hv_libvirt.h"
#include "../core/log.h"
#include "../core/str.h"
#include "../core/banned.h"

#define LT_FUNCS(X)                                                                                          \
	X(virDomainSetSchedulerParametersFlags) X(virDomainGetSchedulerType)                                \
	X(virDomainGetSchedulerParametersFlags) X(virDomainGetCPUStats) X(virDomainListGetStats)            \
	X(virDomainStatsRecordListFree) X(virTypedParamsGetULLong) X(virTypedParamsGetLLong)                \
	X(virTypedParamsGetUInt) X(virTypedParamsClear) X(virDomainGetVcpusFlags) X(virDomainPinVcpuFlags) \
	X(virDomainGetVcpuPinInfo) X(virDomainPinEmulator) X(virDomainGetEmulatorPinInfo)

static struct {
#define LT_FIELD(f) __typeof__(f) *f;
	LT_FUNCS(LT_FIELD)
#undef LT_FIELD
	const char *missing; /* the first function libvirt.so.0 lacks, or NULL */
} lt;

static pthread_once_t lt_once = PTHREAD_ONCE_INIT;

static void lt_load(void)
{
#define X(f)                                                                                                 \
	if (!lt.missing && !(lt.f = (__typeof__(f) *)lv_symbol(#f)))                                        \
		lt.missing = #f;
	LT_FUNCS(X)
#undef X
}

/* The domain of m, the functions loaded; NULL with why */
static virDomainPtr lt_domain(struct lab_hv_mon *m, char *why, size_t len)
{
	(void)pthread_once(&lt_once, lt_load);
	if (lt.missing) {
		errf(why, len, -EOPNOTSUPP, "the libvirt here has no %s", lt.missing);
		return NULL;
	}
	return lv_domain(lv_mon_name(m), why, len);
}

static void lt_param(virTypedParameterPtr p, const char *field, int type, unsigned long long ul, long long l)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->field, sizeof(p->field), "%s", field);
	p->type = type;
	if (type == VIR_TYPED_PARAM_LLONG)
		p->value.l = l;
	else
		p->value.ul = ul;
}

/* A cap's absence as libvirt reads it back: cgroup v1 gives the -1 set,
 * cgroup v2's "max" reads as VIR_CGROUP_CPU_QUOTA_MAX (ULLONG_MAX / 1000,
 * the largest quota libvirt takes) */
#define LT_QUOTA_MAX ((long long)(~0ULL / 1000))

static bool lt_uncapped(long long quota)
{
	return quota < 0 || quota >= LT_QUOTA_MAX;
}

/* The domain's cpu_shares, global_period and global_quota as its cgroups
 * hold them now */
static int lt_sched_read(virDomainPtr d, unsigned long long *shares, unsigned long long *period, long long *quota,
			 char *why, size_t len)
{
	virTypedParameter got[16];
	int n = (int)(sizeof(got) / sizeof(got[0])), r = 0;
	char *type = lt.virDomainGetSchedulerType(d, NULL); /* libvirt's remote driver asks it first */

	free(type);
	memset(got, 0, sizeof(got));
	if (lt.virDomainGetSchedulerParametersFlags(d, got, &n, VIR_DOMAIN_AFFECT_LIVE) < 0)
		return errf(why, len, -EIO, "reading the domain's scheduler parameters: %s", lv_error());
	if (lt.virTypedParamsGetULLong(got, n, VIR_DOMAIN_SCHEDULER_CPU_SHARES, shares) != 1 ||
	    lt.virTypedParamsGetULLong(got, n, VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD, period) != 1 ||
	    lt.virTypedParamsGetLLong(got, n, VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA, quota) != 1)
		r = errf(why, len, -EIO, "the domain's scheduler parameters lack cpu_shares, global_period or "
			 "global_quota");
	if (n > 0)
		lt.virTypedParamsClear(got, n);
	return r;
}

/* A weight's cpu_shares: weight times the hierarchy's own default, as
 * the cgroup row's (cgroup v1's cpu.shares 1024; on cgroup v2 libvirt's
 * cpu_shares is cpu.weight itself, 1 to 10000, default 100), known by
 * what the domain held before its first tune; any other first value
 * takes 100, in range on both */
static unsigned long long lt_shares(unsigned long long first, unsigned weight)
{
	return (first == 1024 ? 1024ULL : 100ULL) * weight;
}

int lv_tune(struct lab_hv_mon *m, unsigned weight, unsigned long long quota_us, unsigned period_us, char *why,
	    size_t len)
{
	virDomainPtr d = lt_domain(m, why, len);
	virTypedParameter set[3];
	unsigned long long *first = lv_mon_shares_first(m), shares, gshares = 0, gperiod = 0;
	long long quota = quota_us ? (long long)quota_us : -1, gquota = 0;
	int r = 0;

	if (!d)
		return -EIO;
	/* the hierarchy's default, before anything of the lab's is set */
	if (!*first && (r = lt_sched_read(d, first, &gperiod, &gquota, why, len)) < 0) {
		*first = 0;
		lv_domain_free(d);
		return r;
	}
	shares = lt_shares(*first, weight);
	lt_param(&set[0], VIR_DOMAIN_SCHEDULER_CPU_SHARES, VIR_TYPED_PARAM_ULLONG, shares, 0);
	lt_param(&set[1], VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD, VIR_TYPED_PARAM_ULLONG, period_us, 0);
	lt_param(&set[2], VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA, VIR_TYPED_PARAM_LLONG, 0, quota);
	if (lt.virDomainSetSchedulerParametersFlags(d, set, 3, VIR_DOMAIN_AFFECT_LIVE) < 0)
		r = errf(why, len, -EIO, "setting the domain's cpu_shares %llu, global_period %u, global_quota %lld: %s",
			 shares, period_us, quota, lv_error());
	/* read back: what the daemon's cgroups hold now */
	if (r == 0)
		r = lt_sched_read(d, &gshares, &gperiod, &gquota, why, len);
	if (r == 0 && (gshares != shares || gperiod != period_us ||
		       (quota < 0 ? !lt_uncapped(gquota) : gquota != quota)))
		r = errf(why, len, -EIO, "the domain's scheduler parameters read back as cpu_shares %llu, global_period "
			 "%llu, global_quota %lld after setting %llu, %u, %lld", gshares, gperiod, gquota, shares,
			 period_us, quota);
	lv_domain_free(d);
	return r;
}

/* The vCPUs' time on a CPU in ns: the per-host-CPU vcpu_time of
 * virDomainGetCPUStats (the vCPU cgroups' cpuacct), summed; -ENODATA when
 * the daemon gives none, another error when it cannot */
static int vcpu_time_exact(virDomainPtr d, unsigned long long *ns, char *why, size_t len)
{
	int ncpu = lt.virDomainGetCPUStats(d, NULL, 0, 0, 0, 0), np, got;
	virTypedParameterPtr p;
	int r = 0;

	np = ncpu > 0 ? lt.virDomainGetCPUStats(d, NULL, 0, 0, 1, 0) : -1;
	if (ncpu <= 0 || np <= 0)
		return errf(why, len, -EIO, "the domain's per-CPU statistics: %s", lv_error());
	if (ncpu > 4096 || np > 64)
		return errf(why, len, -E2BIG, "%d host CPUs of %d statistics each: more than read here", ncpu, np);
	p = calloc((size_t)ncpu * (size_t)np, sizeof(*p));
	if (!p)
		return errf(why, len, -ENOMEM, "out of memory");
	got = lt.virDomainGetCPUStats(d, p, (unsigned)np, 0, (unsigned)ncpu, 0);
	if (got < 0)
		r = errf(why, len, -EIO, "the domain's per-CPU statistics: %s", lv_error());
	*ns = 0;
	for (int c = 0; r == 0 && c < ncpu; c++) {
		unsigned long long v = 0;
		int f = lt.virTypedParamsGetULLong(p + (size_t)c * (size_t)np, got, "vcpu_time", &v);

		if (f != 1)
			r = -ENODATA;
		*ns += v;
	}
	lt.virTypedParamsClear(p, ncpu * np);
	free(p);
	return r;
}

int lv_vcpu_stat(struct lab_hv_mon *m, unsigned long long *cpu_ns, unsigned long long *wait_ns, bool *exact,
		 char *why, size_t len)
{
	virDomainPtr d = lt_domain(m, why, len), doms[2] = { d, NULL };
	virDomainStatsRecordPtr *recs = NULL;
	unsigned long long ticks = 0, delay = 0;
	unsigned cur = 0;
	int r = 0, n;

	if (!d)
		return -EIO;
	n = lt.virDomainListGetStats(doms, VIR_DOMAIN_STATS_VCPU, &recs, 0);
	if (n != 1)
		r = errf(why, len, -EIO, "the domain's vCPU statistics: %s", n < 0 ? lv_error() : "no record");
	if (r == 0 && (lt.virTypedParamsGetUInt(recs[0]->params, recs[0]->nparams, "vcpu.current", &cur) != 1 ||
		       cur < 1 || cur > 1024))
		r = errf(why, len, -EPROTO, "the domain's vCPU statistics name no vCPU (vcpu.current)");
	for (unsigned i = 0; r == 0 && i < cur; i++) {
		char time[48], wait[48];
		unsigned long long t = 0, w = 0;

		snprintf(time, sizeof(time), "vcpu.%u.time", i);
		snprintf(wait, sizeof(wait), "vcpu.%u.delay", i);
		if (lt.virTypedParamsGetULLong(recs[0]->params, recs[0]->nparams, time, &t) != 1 ||
		    lt.virTypedParamsGetULLong(recs[0]->params, recs[0]->nparams, wait, &w) != 1)
			r = errf(why, len, -ENODATA, "the domain's vCPU statistics have no %s or %s (libvirt gives the "
				 "run delay since 7.9)", time, wait);
		ticks += t;
		delay += w;
	}
	if (recs)
		lt.virDomainStatsRecordListFree(recs);
	if (r == 0) {
		char no[512] = "";

		/* libvirt's cgroup v2 back end, for one, has no per-CPU accounting:
		 * the threads' utime + stime then, in the kernel's ticks */
		*exact = vcpu_time_exact(d, cpu_ns, no, sizeof(no)) == 0;
		if (!*exact) {
			log_debug("the vCPUs' time in ns: %s; in the kernel's ticks instead", no[0] ? no : "no vcpu_time");
			*cpu_ns = ticks;
		}
		*wait_ns = delay;
	}
	lv_domain_free(d);
	return r;
}

int lv_confine(struct lab_hv_mon *m, const cpu_set_t *cpus, char *why, size_t len)
{
	virDomainPtr d = lt_domain(m, why, len);
	unsigned char map[128], got[128], all[128 * 8]; /* all: every vCPU's map, read back when they fit */
	int nv, ncpu = lv_host_cpus(lv_mon_name(m)), r = 0;
	size_t maplen;

	if (!d)
		return -EIO;
	nv = lt.virDomainGetVcpusFlags(d, VIR_DOMAIN_AFFECT_LIVE);
	if (nv < 1 || ncpu < 1)
		r = errf(why, len, -EIO, "counting the vCPUs and the host's CPUs: %s", lv_error());
	else if ((size_t)ncpu > sizeof(map) * 8)
		r = errf(why, len, -E2BIG, "%d host CPUs: more than confining here is written for", ncpu);
	maplen = r == 0 ? (size_t)VIR_CPU_MAPLEN(ncpu) : 0;
	memset(map, 0, sizeof(map));
	for (int c = 0; r == 0 && c < ncpu && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, cpus))
			VIR_USE_CPU(map, c);
	for (int i = 0; r == 0 && i < nv; i++)
		if (lt.virDomainPinVcpuFlags(d, (unsigned)i, map, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
			r = errf(why, len, -EIO, "confining vCPU %d: %s", i, lv_error());
	if (r == 0 && lt.virDomainPinEmulator(d, map, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
		r = errf(why, len, -EIO, "confining the hypervisor's own threads: %s", lv_error());
	/* read back: the emulator's map, then each vCPU's */
	if (r == 0 && lt.virDomainGetEmulatorPinInfo(d, got, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
		r = errf(why, len, -EIO, "reading the hypervisor's threads' CPUs back: %s", lv_error());
	if (r == 0 && memcmp(got, map, maplen))
		r = errf(why, len, -EIO, "the hypervisor's own threads are not on the CPUs given after confining them");
	if (r == 0 && (size_t)nv * maplen <= sizeof(all)) {
		if (lt.virDomainGetVcpuPinInfo(d, nv, all, (int)maplen, VIR_DOMAIN_AFFECT_LIVE) < 0)
			r = errf(why, len, -EIO, "reading the vCPUs' CPUs back: %s", lv_error());
		for (int v = 0; r == 0 && v < nv; v++)
			if (memcmp(VIR_GET_CPUMAP(all, maplen, v), map, maplen))
				r = errf(why, len, -EIO, "vCPU %d is not on the CPUs given after confining it", v);
	}
	lv_domain_free(d);
	return r;
}
