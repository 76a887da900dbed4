/* Importers of sysbench's text output (cpu run, memory run): the numbers
 * after their labels, as the cpu and mem suites' cases. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "import.h"
#include "import_int.h"
#include "../core/banned.h"

/* The line holding `label` (from `from`), its number in *line, and where
 * the text after the label starts in *after. */
static const char *text_line(const char *text, const char *from, const char *label, int *line,
			     const char **after)
{
	const char *p = strstr(from, label);

	if (!p)
		return NULL;
	*line = 1;
	for (const char *q = text; q < p; q++)
		*line += *q == '\n';
	*after = p + strlen(label);
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* The number after `label` on its own line, at least `lo`; *rest points after it. */
static int text_num(struct imp *im, const char *text, const char *from, const char *label, double lo,
		    enum kind kind, double *out, const char **rest)
{
	const char *p;
	char *end;
	int line;
	double v;

	if (!text_line(text, from, label, &line, &p))
		return import_fail(im, "no line with '%s' (sysbench's summary is incomplete)", label);
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	v = strtod(p, &end);
	if (end == p || !isfinite(v))
		return import_fail(im, "line %d: expected a number after '%s'", line, label);
	if (v < lo)
		return import_fail(im, "line %d: '%s' %g is out of range (at least %g)", line, label, v, lo);
	if (v > import_kinds[kind].max)
		return import_fail(im, "line %d: '%s' %g is beyond what is plausible (at most %s; see \"Imported figures\" in "
			    "docs/results-schema.md)", line, label, v, import_kinds[kind].text);
	*out = v;
	if (rest)
		*rest = end;
	return 0;
}

/* A whole number of at least 1 after `label`, as text. */
static int text_count(struct imp *im, const char *text, const char *label, char *out, size_t len)
{
	double v;
	int line = 0;
	const char *p;

	if (text_num(im, text, text, label, 1, K_COUNT, &v, NULL) < 0)
		return -EINVAL;
	if (v != floor(v) || v > 1e9) {
		text_line(text, text, label, &line, &p);
		return import_fail(im, "line %d: expected a whole number after '%s'", line, label);
	}
	snprintf(out, len, "%.0f", v);
	return 0;
}

/* A size as sysbench prints it ("1024KiB", "102400MiB") in bytes, as text. */
static int text_size(struct imp *im, const char *text, const char *label, char *out, size_t len)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = { { "B", 1 }, { "KiB", 1024 }, { "MiB", 1048576 }, { "GiB", 1073741824.0 },
		      { "TiB", 1099511627776.0 } };
	const char *rest;
	double v;
	int line = 0;

	if (text_num(im, text, text, label, 1, K_COUNT, &v, &rest) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strncmp(rest, units[i].suffix, strlen(units[i].suffix)) &&
		    (rest[strlen(units[i].suffix)] == '\n' || rest[strlen(units[i].suffix)] == '\0' ||
		     rest[strlen(units[i].suffix)] == '\r')) {
			snprintf(out, len, "%.0f", v * units[i].mult);
			return 0;
		}
	text_line(text, text, label, &line, &rest);
	return import_fail(im, "line %d: expected a size in B, KiB, MiB, GiB or TiB after '%s'", line, label);
}

/* The word after `label` on its line, one of `choices`. */
static int text_word(struct imp *im, const char *text, const char *label, const char *const *choices,
		     const char **out)
{
	const char *p;
	int line;

	if (!text_line(text, text, label, &line, &p))
		return import_fail(im, "no line with '%s' (sysbench's summary is incomplete)", label);
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *choices; choices++) {
		size_t n = strlen(*choices);

		if (!strncmp(p, *choices, n) && (p[n] == '\n' || p[n] == '\0' || p[n] == '\r' || p[n] == ' ')) {
			*out = *choices;
			return 0;
		}
	}
	return import_fail(im, "line %d: unknown value after '%s'", line, label);
}

bool import_sysbench_cpu_detect(const struct imp_input *in)
{
	return !in->root && strstr(in->text, "sysbench") && strstr(in->text, "CPU speed:");
}

int import_sysbench_cpu(struct imp *im, const struct imp_input *in)
{
	const char *text = in->text, *latp;
	char th[24], limit[24];
	double v, lat;
	struct vmb_case *c;
	struct where w;
	int line;

	if (text_count(im, text, "Number of threads:", th, sizeof(th)) < 0 ||
	    text_count(im, text, "Prime numbers limit:", limit, sizeof(limit)) < 0 ||
	    text_num(im, text, text, "events per second:", 0, K_EVENTS_S, &v, NULL) < 0)
		return -EINVAL;
	/* "avg:" of the "Latency (ms):" block */
	if (!text_line(text, text, "Latency (ms):", &line, &latp))
		return import_fail(im, "no line with 'Latency (ms):' (sysbench's summary is incomplete)");
	if (text_num(im, text, latp, "avg:", 0, K_MS, &lat, NULL) < 0)
		return -EINVAL;
	{
		const char *kv[] = { "threads", th, "max-prime", limit, NULL };

		c = import_case_of(im, "cpu", "prime", kv, &w);
	}
	if (!c || import_value(c, "events_per_s", VMB_UNIT_PER_S, VMB_HIGHER, true, v) < 0 ||
	    import_value(c, "latency", VMB_UNIT_NS, VMB_LOWER, false, lat * 1e6) < 0)
		return -ENOMEM;
	return 0;
}

/* Is p (found by a search from `at`) on the line `at` is on? */
static bool on_line(const char *at, const char *p)
{
	const char *nl = strchr(at, '\n');

	return p && (!nl || p < nl);
}

bool import_sysbench_memory_detect(const struct imp_input *in)
{
	return !in->root && strstr(in->text, "sysbench") && strstr(in->text, "Running memory speed test");
}

int import_sysbench_memory(struct imp *im, const struct imp_input *in)
{
	static const char *const opers[] = { "read", "write", "none", NULL };
	static const char *const scopes[] = { "global", "local", NULL };
	static const char *const modes[] = { "seq", "rnd", NULL };
	const char *text = in->text, *oper, *scope, *access = IMPORT_UNSTATED, *ops_at, *p;
	char th[24], block[32], total[32];
	double ops, mib = NAN;
	struct vmb_case *c;
	struct where w;
	int line;

	if (text_count(im, text, "Number of threads:", th, sizeof(th)) < 0 ||
	    text_size(im, text, "block size:", block, sizeof(block)) < 0 ||
	    text_size(im, text, "total size:", total, sizeof(total)) < 0 ||
	    text_word(im, text, "operation:", opers, &oper) < 0 || text_word(im, text, "scope:", scopes, &scope) < 0)
		return -EINVAL;
	/* sysbench 1.0 does not print --memory-access-mode; record it when a version does */
	if (strstr(text, "access mode:") && text_word(im, text, "access mode:", modes, &access) < 0)
		return -EINVAL;
	/* "Total operations: 2048 (31085.12 per second)": the rate on this line only */
	if (!text_line(text, text, "Total operations:", &line, &ops_at))
		return import_fail(im, "no line with 'Total operations:' (sysbench's summary is incomplete)");
	p = strchr(ops_at, '(');
	if (!on_line(ops_at, p) || !on_line(ops_at, strstr(ops_at, "per second")))
		return import_fail(im, "line %d: 'Total operations:' has no '(N per second)' figure", line);
	if (text_num(im, text, ops_at, "(", 0, K_OPS_S, &ops, NULL) < 0)
		return -EINVAL;
	/* "2048.00 MiB transferred (31085.12 MiB/sec)": none of read or write moves no data */
	if (strcmp(oper, "none")) {
		const char *mp;

		if (!text_line(text, text, "MiB transferred", &line, &mp))
			return import_fail(im, "no line with 'MiB transferred' (sysbench's summary is incomplete)");
		if (!on_line(mp, strchr(mp, '(')) || !on_line(mp, strstr(mp, "MiB/sec")))
			return import_fail(im, "line %d: 'MiB transferred' has no '(N MiB/sec)' figure", line);
		if (text_num(im, text, mp, "(", 0, K_MIB_S, &mib, NULL) < 0)
			return -EINVAL;
	}
	{
		const char *kv[] = { "threads", th, "oper", oper, "block-size", block, "total-size", total,
				     "access", access, "scope", scope, NULL };

		c = import_case_of(im, "mem", "sysbench_memory", kv, &w);
	}
	if (!c || import_value(c, "ops_per_s", VMB_UNIT_PER_S, VMB_HIGHER, !isfinite(mib), ops) < 0)
		return -ENOMEM;
	if (isfinite(mib) && import_value(c, "mb_per_s", VMB_UNIT_MB_PER_S, VMB_HIGHER, true, mib * 1048576.0 / 1e6) < 0)
		return -ENOMEM;
	return 0;
}

