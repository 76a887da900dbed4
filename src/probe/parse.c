/* Parsers of what the probe reads (/proc/cpuinfo, meminfo, stat, environ,
 * sysfs values, the fixtures' stand-in files), apart from any file I/O so
 * that the unit tests and the fuzz target can feed them bytes. Each walks
 * its text once, by length: a file may hold NULs or lack a final newline,
 * and a line of megabytes must not cost quadratic time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "../core/util.h"
#include "../core/banned.h"

/* Copy n bytes (fewer if out is smaller, up to a NUL) as a C string. */
static void copy_n(char *out, size_t outlen, const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);

	if (nul)
		n = (size_t)(nul - s);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next line of [*p, end): its start and length; false at the end. */
static bool next_line(const char **p, const char *end, const char **line, size_t *n)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*n = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

/* "0x41" (hexadecimal, at most 8 digits) -> 0x41; -EINVAL otherwise */
int probe_parse_hex(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == n || n - i > 8)
		return -EINVAL;
	for (; i < n; i++) {
		unsigned d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned)(s[i] - 'a' + 10);
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned)(s[i] - 'A' + 10);
		else
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static bool key_is(const char *key, size_t kl, const char *name)
{
	return kl == strlen(name) && !memcmp(key, name, kl);
}

void probe_parse_cpuinfo(const char *text, size_t len, struct probe_cpuinfo *ci)
{
	const char *p = text, *end = text + len, *line;
	char part[32] = "";
	bool have_impl = false, have_part = false;
	size_t n;

	memset(ci, 0, sizeof(*ci));
	while (next_line(&p, end, &line, &n)) {
		const char *colon = memchr(line, ':', n), *v;
		size_t kl, vl;

		if (!colon)
			continue;
		kl = (size_t)(colon - line);
		while (kl && is_blank(line[kl - 1]))
			kl--;
		v = colon + 1;
		vl = n - (size_t)(v - line);
		while (vl && is_blank(*v))
			v++, vl--;
		while (vl && (is_blank(v[vl - 1]) || v[vl - 1] == '\r'))
			vl--;
		if (key_is(line, kl, "model name") && !ci->model[0]) {
			copy_n(ci->model, sizeof(ci->model), v, vl);
		} else if (key_is(line, kl, "vendor_id") && !ci->vendor[0]) {
			copy_n(ci->vendor, sizeof(ci->vendor), v, vl);
		} else if (key_is(line, kl, "cache size") && !ci->cache_size[0]) {
			copy_n(ci->cache_size, sizeof(ci->cache_size), v, vl);
		} else if (key_is(line, kl, "CPU implementer") && !have_impl) {
			have_impl = probe_parse_hex(v, vl, &ci->implementer) == 0;
			if (!ci->vendor[0])
				copy_n(ci->vendor, sizeof(ci->vendor), v, vl);
		} else if (key_is(line, kl, "CPU part") && !have_part) {
			have_part = probe_parse_hex(v, vl, &ci->part) == 0;
			copy_n(part, sizeof(part), v, vl);
		} else if ((key_is(line, kl, "flags") || key_is(line, kl, "Features")) && !ci->flags) {
			ci->flags = v;
			ci->flags_len = vl;
			for (size_t i = 0; i < vl; i++)
				ci->nflags += !is_blank(v[i]) && (i == 0 || is_blank(v[i - 1]));
		}
	}
	ci->have_midr = have_impl && have_part;
	if (!ci->model[0])
		copy_n(ci->model, sizeof(ci->model), part, strlen(part)); /* arm64 names no model */
}

bool probe_has_flag(const struct probe_cpuinfo *ci, const char *flag)
{
	size_t fl = strlen(flag), i = 0, n = ci->flags ? ci->flags_len : 0;

	while (i < n) {
		size_t start;

		while (i < n && is_blank(ci->flags[i]))
			i++;
		start = i;
		while (i < n && !is_blank(ci->flags[i]))
			i++;
		if (i - start == fl && fl && !memcmp(ci->flags + start, flag, fl))
			return true;
	}
	return false;
}

/* Decimal digits only (no sign, no space) -> value; -EINVAL or -ERANGE. */
static int parse_u64(const char *s, size_t n, size_t *used, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (!i)
		return -EINVAL;
	*used = i;
	*out = v;
	return 0;
}

int probe_meminfo_value(const char *text, size_t len, const char *key, int64_t *out)
{
	const char *p = text, *end = text + len, *line;
	size_t kl = strlen(key), n;

	while (next_line(&p, end, &line, &n)) {
		size_t i = kl + 1, used;
		uint64_t v;
		int r;

		if (n <= kl || memcmp(line, key, kl) || line[kl] != ':')
			continue;
		while (i < n && is_blank(line[i]))
			i++;
		r = parse_u64(line + i, n - i, &used, &v);
		if (r < 0)
			return r;
		i += used;
		while (i < n && is_blank(line[i]))
			i++;
		if (n - i == 2 && !memcmp(line + i, "kB", 2)) {
			if (v > (uint64_t)INT64_MAX / 1024)
				return -ERANGE;
			v *= 1024;
		} else if (i != n) {
			return -EINVAL;
		}
		if (v > (uint64_t)INT64_MAX)
			return -ERANGE;
		*out = (int64_t)v;
		return 0;
	}
	return -ENOENT;
}

int probe_parse_stat(const char *text, size_t len, uint64_t *steal, uint64_t *total)
{
	const char *p = text, *line;
	uint64_t v[8], sum = 0;
	size_t n, i = 3;

	if (!next_line(&p, text + len, &line, &n) || n < 4 || memcmp(line, "cpu", 3) || !is_blank(line[3]))
		return -EINVAL;
	for (int k = 0; k < 8; k++) {
		size_t used;
		int r;

		while (i < n && is_blank(line[i]))
			i++;
		r = parse_u64(line + i, n - i, &used, &v[k]);
		if (r < 0)
			return r;
		i += used;
		if (i < n && !is_blank(line[i]))
			return -EINVAL;
		if (sum > UINT64_MAX - v[k])
			return -ERANGE;
		sum += v[k];
	}
	*steal = v[7];
	*total = sum;
	return 0;
}

int probe_kv(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
	const char *p = text, *end = text + len, *line;
	size_t kl = strlen(key), n;

	while (next_line(&p, end, &line, &n))
		if (n > kl && !memcmp(line, key, kl) && line[kl] == '=') {
			copy_n(out, outlen, line + kl + 1, n - kl - 1);
			return 0;
		}
	return -ENOENT;
}

int probe_environ_get(const char *buf, size_t len, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key), i = 0;

	while (i < len) {
		const char *e = buf + i, *nul = memchr(e, '\0', len - i);
		size_t n = nul ? (size_t)(nul - e) : len - i;

		if (n > kl + 1 && !memcmp(e, key, kl) && e[kl] == '=') {
			copy_n(out, outlen, e + kl + 1, n - kl - 1);
			return 0;
		}
		i += n + 1;
	}
	return -ENOENT;
}

int probe_bracketed(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b;

	if (!a || !(b = strchr(a, ']')))
		return -EINVAL;
	copy_n(out, len, a + 1, (size_t)(b - a - 1));
	return 0;
}

unsigned long long probe_parse_cache_size(const char *s)
{
	uint64_t v;

	return parse_size(s, 1, UINT64_MAX, &v) == 0 ? v : 0;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF, as jansson checks), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < need + 1 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i <= need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need + 1;
}

char *probe_utf8_clean(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strnlen(s, len), o = 0;
	char *out = malloc(4 * n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		/* a control character would drive the terminal that shows it */
		size_t k = str_control_at(s + i, n - i) ? 0 : utf8_seq(u + i, n - i);

		if (k) {
			memcpy(out + o, u + i, k);
			o += k;
			i += k;
		} else {
			static const char hex[] = "0123456789abcdef";

			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[u[i] >> 4];
			out[o++] = hex[u[i] & 15];
			i++;
		}
	}
	out[o] = '\0';
	return out;
}
