/* The CPU: model, topology (sockets, cores, threads, NUMA nodes), caches,
 * the flags that matter for virtualization benchmarks, the governor. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

static json_t *probe_caches(const char *root)
{
	json_t *arr = json_array();

	for (unsigned i = 0; i < 16; i++) {
		char p[128], level[16], type[32], size[32];
		int64_t lv;

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
		if (probe_read_line(root, p, level, sizeof(level)) < 0)
			break;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/type", i);
		if (probe_read_line(root, p, type, sizeof(type)) < 0)
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		if (probe_read_line(root, p, size, sizeof(size)) < 0)
			continue;
		if (parse_i64(level, 0, 9, &lv) < 0)
			continue;
		json_array_append_new(arr, json_pack("{s:I, s:o, s:I}", "level", (json_int_t)lv, "type",
						     probe_jstr(type), "size_bytes",
						     (json_int_t)probe_parse_cache_size(size)));
	}
	return arr;
}

struct core_id {
	int64_t pkg, core;
};

static int core_cmp(const void *a, const void *b)
{
	const struct core_id *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	return x->core < y->core ? -1 : x->core > y->core;
}

struct topology {
	size_t sockets, cores; /* 0: unknown */
};

/* Unique packages and (package, core) pairs give sockets and cores. A
 * kernel that does not know a CPU's package or core says -1 there: the
 * count is then unknown rather than a guess. */
static void count_topology(const char *root, const unsigned *cpus, size_t ncpus, struct topology *t)
{
	struct core_id *ids = calloc(ncpus ? ncpus : 1, sizeof(*ids));
	bool pkg_known = true, core_known = true;
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	if (!ids)
		return;
	for (size_t i = 0; i < ncpus; i++) {
		char path[128], b[32];
		int64_t pk, co;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", cpus[i]);
		if (probe_read_line(root, path, b, sizeof(b)) < 0 || parse_i64(b, -1, INT32_MAX, &pk) < 0)
			goto out;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/core_id", cpus[i]);
		if (probe_read_line(root, path, b, sizeof(b)) < 0 || parse_i64(b, -1, INT32_MAX, &co) < 0)
			goto out;
		pkg_known &= pk >= 0;
		core_known &= co >= 0;
		ids[n++] = (struct core_id){ pk, co };
	}
	if (!n)
		goto out;
	qsort(ids, n, sizeof(*ids), core_cmp);
	for (size_t i = 0; i < n; i++) {
		t->sockets += i == 0 || ids[i].pkg != ids[i - 1].pkg;
		t->cores += i == 0 || core_cmp(&ids[i], &ids[i - 1]);
	}
	if (!pkg_known)
		t->sockets = t->cores = 0;
	if (!core_known)
		t->cores = 0;
out:
	free(ids);
}

static size_t count_nodes(const char *root)
{
	char path[PATH_MAX];
	size_t nodes = 0;
	DIR *d;

	probe_path(root, "/sys/devices/system/node", path, sizeof(path));
	d = opendir(path);
	if (d) {
		struct dirent *e;

		while ((e = readdir(d)))
			if (str_has_prefix(e->d_name, "node") && e->d_name[4] >= '0' && e->d_name[4] <= '9')
				nodes++;
		closedir(d);
	}
	return nodes;
}

static json_t *jcount(size_t n)
{
	return n ? json_integer((json_int_t)n) : json_null();
}

json_t *probe_cpu(const char *root, const struct probe_cpuinfo *ci)
{
	char online[PROBE_MAX_LINE];
	unsigned *cpus = NULL;
	size_t ncpus = 0, nodes;
	struct topology t = { 0 };

	if (probe_read_line(root, "/sys/devices/system/cpu/online", online, sizeof(online)) == 0 &&
	    parse_cpu_list(online, &cpus, &ncpus) == 0)
		count_topology(root, cpus, ncpus, &t);
	free(cpus);
	nodes = count_nodes(root);

	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I, s:{s:b, s:b, s:b, s:b, s:b, s:b}, s:o}",
			 "model", probe_jstr(*ci->model ? ci->model : NULL),
			 "vendor", probe_jstr(*ci->vendor ? ci->vendor : NULL),
			 "logical", jcount(ncpus),
			 "sockets", jcount(t.sockets),
			 "cores", jcount(t.cores),
			 "threads_per_core", t.cores && ncpus % t.cores == 0 ? jcount(ncpus / t.cores) : json_null(),
			 "numa_nodes", (json_int_t)(nodes ? nodes : 1),
			 "caches", probe_caches(root),
			 /* how many flags the CPU shows; the ones below are named */
			 "flag_count", (json_int_t)ci->nflags,
			 "flags",
			 "vmx", probe_has_flag(ci, "vmx"),
			 "svm", probe_has_flag(ci, "svm"),
			 "avx2", probe_has_flag(ci, "avx2"),
			 "avx512f", probe_has_flag(ci, "avx512f"),
			 /* Linux sets both for an invariant TSC (CPUID 0x80000007 EDX bit 8). */
			 "invariant_tsc", probe_has_flag(ci, "constant_tsc") && probe_has_flag(ci, "nonstop_tsc"),
			 "hypervisor", probe_has_flag(ci, "hypervisor"),
			 "governor", probe_jline(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
}
