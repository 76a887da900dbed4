/* The CPU: model, topology (sockets, cores, threads, NUMA nodes), caches
 * (cache.c), the flags that matter for virtualization benchmarks, the governor. */
#include <dirent.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "internal.h"
#include "../core/util.h"
#include "../core/banned.h"

/* The cache chain's answer (cache.c): each level with the source that gave
 * it, the line size with its source, and every value not trusted with why. */
static json_t *probe_caches(const char *root, json_t **line, json_t **rejected)
{
	static const char *const types[CACHE_NLEVELS] = { "Data", "Unified", "Unified" };
	struct cache_info ci;
	json_t *arr = json_array(), *rej = json_array(), *ln;
	bool ok = arr && rej;

	cache_read(root, &ci);
	/* an entry that cannot be made (out of memory) fails the list: never one silently missing */
	for (int lv = 0; ok && lv < CACHE_NLEVELS; lv++)
		if (ci.size[lv])
			ok = json_array_append_new(arr, json_pack("{s:i, s:s, s:I, s:s}", "level", lv + 1, "type",
								  types[lv], "size_bytes", (json_int_t)ci.size[lv],
								  "source", ci.source[lv])) == 0;
	for (size_t i = 0; ok && i < ci.nrejected; i++)
		ok = json_array_append_new(rej, json_pack("{s:s, s:I, s:s, s:s}", "level",
							  cache_level_names[ci.rejected[i].level], "size_bytes",
							  (json_int_t)ci.rejected[i].size, "source", ci.rejected[i].source,
							  "why", ci.rejected[i].why)) == 0;
	ln = ok ? json_pack("{s:I, s:s}", "bytes", (json_int_t)ci.line, "source", ci.line_source) : NULL;
	if (!ln) {
		json_decref(arr);
		json_decref(rej);
		*line = *rejected = NULL;
		return NULL;
	}
	*line = ln;
	*rejected = rej;
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
	json_t *caches, *line, *rejected;

	if (probe_read_line(root, "/sys/devices/system/cpu/online", online, sizeof(online)) == 0 &&
	    parse_cpu_list(online, &cpus, &ncpus) == 0)
		count_topology(root, cpus, ncpus, &t);
	free(cpus);
	nodes = count_nodes(root);
	caches = probe_caches(root, &line, &rejected);

	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:I, s:{s:b, s:b, s:b, s:b, s:b, s:b}, s:o}",
			 "model", probe_jstr(*ci->model ? ci->model : NULL),
			 "vendor", probe_jstr(*ci->vendor ? ci->vendor : NULL),
			 "logical", jcount(ncpus),
			 "sockets", jcount(t.sockets),
			 "cores", jcount(t.cores),
			 "threads_per_core", t.cores && ncpus % t.cores == 0 ? jcount(ncpus / t.cores) : json_null(),
			 "numa_nodes", (json_int_t)(nodes ? nodes : 1),
			 "caches", caches,
			 "cache_line", line,
			 /* values a source gave that were not trusted, and why */
			 "caches_rejected", rejected,
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
