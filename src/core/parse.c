/* Numbers and lists from the command line and from files: decimal only,
 * whole strings, range-checked. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse.h"
#include "str.h"
#include "banned.h"

/* Is s a whole decimal number: [+-]digits, or with fraction also
 * [+-]digits.digits[e[+-]digits]? strtod alone takes "0x10" (16), "inf",
 * "nan" and leading blanks; strtoll takes blanks; neither may decide what
 * a user's number means. */
static bool is_decimal(const char *s, bool fraction)
{
	const char *p = s;
	size_t digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (fraction && *p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (digits == 0)
		return false;
	if (fraction && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !is_decimal(s, false))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !is_decimal(s, true))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	/* overflow (1e999) and underflow (1e-999) both come back as ERANGE */
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{ "", 0 }, { "b", 0 }, { "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 }, { "g", 30 }, { "gb", 30 },
		{ "gib", 30 }, { "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		v <<= units[i].shift;
		if (v < min || v > max)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Sort and remove duplicates in place; returns the new length. */
static size_t uniq_sorted(unsigned *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_unsigned);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int push_unsigned(unsigned **v, size_t *n, size_t *cap, unsigned x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		unsigned *nv;

		if (nc > 65536)
			return -E2BIG;
		nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int parse_cpu_list(const char *s, unsigned **out, size_t *n)
{
	unsigned *v = NULL;
	size_t len = 0, cap = 0;
	const char *p = s;
	int r = -EINVAL;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		char *end;
		unsigned long a, b;

		r = -EINVAL;
		if (!isdigit((unsigned char)*p))
			goto fail;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto fail;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= CPU_SETSIZE) {
			r = -ERANGE;
			goto fail;
		}
		for (unsigned long c = a; c <= b; c++) {
			r = push_unsigned(&v, &len, &cap, (unsigned)c);
			if (r < 0)
				goto fail;
		}
		if (*end == '\0')
			break;
		if (*end != ',') {
			r = -EINVAL;
			goto fail;
		}
		p = end + 1;
	}
	*n = uniq_sorted(v, len);
	*out = v;
	return 0;
fail:
	free(v);
	return r;
}

int parse_uint_list(const char *s, unsigned min, unsigned max, unsigned all_value,
		    unsigned **out, size_t *n)
{
	unsigned *v = NULL;
	size_t len = 0, cap = 0;
	char *copy, *tok, *save = NULL;
	int r = 0;

	if (!s || !*s)
		return -EINVAL;
	copy = xstrdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int64_t x;

		if (!strcmp(tok, "all")) {
			x = all_value;
		} else {
			r = parse_i64(tok, min, max, &x);
			if (r < 0)
				break;
		}
		r = push_unsigned(&v, &len, &cap, (unsigned)x);
		if (r < 0)
			break;
	}
	/* "1,,2" or a trailing comma leaves an empty element strtok_r skips. */
	if (r == 0 && (len == 0 || strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ','))
		r = -EINVAL;
	free(copy);
	if (r < 0) {
		free(v);
		return r;
	}
	*n = uniq_sorted(v, len);
	*out = v;
	return 0;
}
