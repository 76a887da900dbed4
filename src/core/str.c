/* String helpers: owned copies, formatting, prefixes, word lists, edit
 * distance for "did you mean" hints. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "str.h"
#include "banned.h"

int errf(char *err, size_t len, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return r;
}

void str_appendf(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	if (*off >= len)
		return;
	room = len - *off;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[*off] = '\0';
		return;
	}
	if ((size_t)n < room) {
		*off += (size_t)n;
		return;
	}
	/* cut: vsnprintf ended buf at len - 1; say so where a reader looks */
	if (len > 3)
		memcpy(buf + len - 4, "...", 4);
	*off = len;
}

char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_in_list(const char *list, char sep, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, sep);
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l == len && !strncmp(p, word, l))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

size_t str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

size_t str_control_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!n)
		return 0;
	if ((u[0] < 0x20 && u[0] != '\t' && u[0] != '\n') || u[0] == 0x7f)
		return 1;
	if (n >= 2 && u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
		return 2;
	return 0;
}

long str_find_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (str_control_at(s + i, n - i))
			return (long)i;
	return -1;
}

/* Jansson's rule (RFC 3629): no overlong form, no surrogate, nothing above
 * U+10FFFF; so a string this accepts is one json_string() takes. */
long str_find_bad_utf8(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		unsigned c = u[i], len, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!len || n - i < len)
			return (long)i;
		cp = c & (0x7f >> len);
		for (unsigned k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += len;
	}
	return -1;
}

void str_time_left(double s, char *buf, size_t len)
{
	if (s < 59.5)
		snprintf(buf, len, "~%.0f s left", s);
	else if (s < 5940)
		snprintf(buf, len, "~%.0f min left", s / 60);
	else
		snprintf(buf, len, "~%.1f h left", s / 3600);
}
