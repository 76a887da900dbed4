/* What a study's table shows: the units a column may be in, the statistic
 * of its rounds (mean, trimmed, median), a cell's text, and the escaping of
 * what a study file said before it reaches a terminal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"
#include "study_parser.h"
#include "../core/macro.h"
#include "../core/str.h"
#include "../core/banned.h"

/* Units a column may be shown in: a dimension and the size of one unit in
 * the dimension's base (seconds, bytes/s, bits/s, 1/s). */
static const struct {
	const char *name, *dim;
	double base;
} units[] = {
	{ "ns", "time", 1e-9 },         { "us", "time", 1e-6 },         { "µs", "time", 1e-6 },
	{ "ms", "time", 1e-3 },         { "s", "time", 1 },             { "min", "time", 60 },
	{ "h", "time", 3600 },          { "B/s", "bytes", 1 },          { "KB/s", "bytes", 1e3 },
	{ "MB/s", "bytes", 1e6 },       { "GB/s", "bytes", 1e9 },       { "KiB/s", "bytes", 1024 },
	{ "MiB/s", "bytes", 1048576 },  { "GiB/s", "bytes", 1073741824 }, { "bit/s", "bits", 1 },
	{ "Kbit/s", "bits", 1e3 },      { "Mbit/s", "bits", 1e6 },      { "Gbit/s", "bits", 1e9 },
	{ "1/s", "rate", 1 },           { "%", "percent", 1 },
};

int study_unit_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(units[i].name, name))
			return (int)i;
	return -1;
}

double study_unit_factor(const char *from, const char *to)
{
	int a = study_unit_find(from), b = study_unit_find(to);

	if (a < 0 || b < 0 || strcmp(units[a].dim, units[b].dim))
		return 0;
	return units[a].base / units[b].base;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double study_statistic(double *v, size_t n, enum study_stat st)
{
	size_t lo = 0, hi = n;
	double sum = 0;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), dbl_cmp);
	if (st == STUDY_MEDIAN)
		return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (st == STUDY_TRIMMED && n >= 3) {
		lo = 1;
		hi = n - 1;
	}
	for (size_t i = lo; i < hi; i++)
		sum += v[i];
	return sum / (double)(hi - lo);
}

static void fmt_value(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

bool study_cell_text(const char *col_unit, const char *doc_unit, double v, char *buf, size_t len)
{
	double f = *col_unit ? study_unit_factor(doc_unit, col_unit) : 0;

	if (!*col_unit || f > 0 || !isfinite(v)) {
		fmt_value(f > 0 ? v * f : v, buf, len);
		return !*col_unit || f > 0 || !isfinite(v);
	}
	fmt_value(v, buf, len);
	snprintf(buf + strlen(buf), len - strlen(buf), " %s", *doc_unit ? doc_unit : "(no unit)");
	return false;
}

const char *study_stat_name(enum study_stat st)
{
	return st == STUDY_TRIMMED ? "trimmed" : st == STUDY_MEDIAN ? "median" : "mean";
}

const char *study_escape(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s), o = 0;
	long bad = str_find_bad_utf8(s, n);

	if (!len)
		return buf;
	for (size_t i = 0; i < n;) {
		size_t k = str_control_at(s + i, n - i);

		if (bad >= 0 && (size_t)bad < i)
			bad = str_find_bad_utf8(s + i, n - i), bad = bad < 0 ? -1 : bad + (long)i;
		if (k || (long)i == bad) {
			k = k ? k : 1;
			if (o + 4 * k >= len)
				break;
			for (size_t j = 0; j < k; j++)
				str_appendf(buf, len, &o, "\\x%02x", (unsigned char)s[i + j]);
			i += k;
			continue;
		}
		/* a character whole, or not at all */
		k = (unsigned char)s[i] < 0x80 ? 1 : (unsigned char)s[i] < 0xe0 ? 2 : (unsigned char)s[i] < 0xf0 ? 3 : 4;
		if (o + k >= len)
			break;
		memcpy(buf + o, s + i, k);
		o += k;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}
