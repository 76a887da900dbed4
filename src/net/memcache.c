/* memcached's text protocol: requests written out, responses parsed as
 * they arrive (see memcache.h). A line is copied into the parser's bounded
 * buffer until its \n; a value is skipped by its count, never copied. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "memcache.h"
#include "../core/banned.h"

enum { S_LINE, S_DATA, S_DATA_CR, S_DATA_LF, S_DONE, S_FAIL };

void mc_resp_init(struct mc_resp *p, enum mc_op op, const char *key, size_t keylen)
{
	p->done = false;
	p->status = MC_MISS;
	p->value_len = 0;
	p->flags = 0;
	p->total = 0;
	p->op = op;
	p->key = key;
	p->keylen = keylen;
	p->state = S_LINE;
	p->have_value = false;
	p->left = 0;
	p->len = 0;
	p->line[0] = '\0';
}

const char *mc_status_name(enum mc_status s)
{
	static const char *const names[] = {
		[MC_HIT] = "a hit",
		[MC_MISS] = "a miss",
		[MC_STORED] = "STORED",
		[MC_NOT_STORED] = "NOT_STORED",
		[MC_ERROR] = "ERROR",
		[MC_CLIENT_ERROR] = "CLIENT_ERROR",
		[MC_SERVER_ERROR] = "SERVER_ERROR",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

bool mc_key_valid(const char *key, size_t len)
{
	if (len == 0 || len > MC_MAX_KEY)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)key[i] <= 0x20 || key[i] == 0x7f)
			return false;
	return true;
}

int mc_key(char *buf, size_t cap, size_t len, uint64_t i)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, i);

	if (len < 4 || len > MC_MAX_KEY || cap <= len || n <= 0 || (size_t)n > len - 3)
		return -EINVAL;
	memcpy(buf, "vmb", 3);
	memset(buf + 3, '0', len - 3 - (size_t)n);
	memcpy(buf + len - (size_t)n, digits, (size_t)n);
	buf[len] = '\0';
	return (int)len;
}

int mc_format_get(char *buf, size_t cap, const char *key, size_t keylen)
{
	int n;

	if (!mc_key_valid(key, keylen))
		return -EINVAL;
	n = snprintf(buf, cap, "get %.*s\r\n", (int)keylen, key);
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

int mc_format_set_head(char *buf, size_t cap, const char *key, size_t keylen, uint32_t flags, uint32_t exptime,
		       uint64_t bytes)
{
	int n;

	if (!mc_key_valid(key, keylen) || bytes > MC_MAX_VALUE)
		return -EINVAL;
	n = snprintf(buf, cap, "set %.*s %" PRIu32 " %" PRIu32 " %" PRIu64 "\r\n", (int)keylen, key, flags, exptime,
		     bytes);
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

/* A decimal number of 1 to 20 digits at *s (before end), at most max: 0 with
 * *out and *s past it; -EINVAL when there is none or it is larger. */
static int number(const char **s, const char *end, uint64_t max, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (p == end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v > max)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

static bool is(const char *line, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(line, word, n);
}

/* An error line: ERROR alone, CLIENT_ERROR or SERVER_ERROR alone or with a
 * message after a space. */
static bool error_line(const char *line, size_t n, enum mc_status *st)
{
	static const struct {
		const char *word;
		enum mc_status st;
	} words[] = { { "CLIENT_ERROR", MC_CLIENT_ERROR }, { "SERVER_ERROR", MC_SERVER_ERROR } };

	if (is(line, n, "ERROR")) {
		*st = MC_ERROR;
		return true;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t w = strlen(words[i].word);

		if (n >= w && !memcmp(line, words[i].word, w) && (n == w || line[w] == ' ')) {
			*st = words[i].st;
			return true;
		}
	}
	return false;
}

/* "VALUE KEY FLAGS BYTES[ CAS]" of a get of p->key. */
static int value_line(struct mc_resp *p, const char *line, size_t n)
{
	const char *s = line + 6, *end = line + n, *sp;
	uint64_t flags, bytes, cas;

	if (p->have_value)
		return -EINVAL; /* one key asked, one value at most */
	sp = memchr(s, ' ', (size_t)(end - s));
	if (!sp || !mc_key_valid(s, (size_t)(sp - s)) || (p->key && (p->keylen != (size_t)(sp - s) ||
								     memcmp(s, p->key, p->keylen))))
		return -EINVAL;
	s = sp + 1;
	if (number(&s, end, UINT32_MAX, &flags) < 0 || s == end || *s++ != ' ' ||
	    number(&s, end, UINT64_MAX, &bytes) < 0)
		return -EINVAL;
	if (s < end && (*s++ != ' ' || number(&s, end, UINT64_MAX, &cas) < 0))
		return -EINVAL;
	if (s != end)
		return -EINVAL;
	if (bytes > MC_MAX_VALUE)
		return -EMSGSIZE;
	p->have_value = true;
	p->flags = (uint32_t)flags;
	p->value_len = bytes;
	p->left = bytes;
	p->state = S_DATA;
	return 0;
}

/* A whole line, line[0, n) without its \r\n. */
static int do_line(struct mc_resp *p, const char *line, size_t n)
{
	enum mc_status st;

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			return -EINVAL;
	if (error_line(line, n, &st)) {
		p->status = st;
		p->state = S_DONE;
		return 0;
	}
	if (p->op == MC_GET) {
		if (is(line, n, "END")) {
			p->status = p->have_value ? MC_HIT : MC_MISS;
			p->state = S_DONE;
			return 0;
		}
		if (n > 6 && !memcmp(line, "VALUE ", 6))
			return value_line(p, line, n);
		return -EINVAL;
	}
	if (is(line, n, "STORED") || is(line, n, "NOT_STORED")) {
		p->status = n == 6 ? MC_STORED : MC_NOT_STORED;
		p->state = S_DONE;
		return 0;
	}
	return -EINVAL;
}

int mc_resp_feed(struct mc_resp *p, const char *buf, size_t len, size_t *used)
{
	size_t i = 0;
	int r = 0;

	*used = 0;
	if (p->state == S_FAIL || (p->state == S_DONE && len))
		goto fail;
	while (i < len && p->state != S_DONE) {
		switch (p->state) {
		case S_LINE: {
			const char *nl = memchr(buf + i, '\n', len - i);
			size_t k = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;

			if (k > MC_MAX_LINE - p->len) {
				r = -EMSGSIZE;
				goto fail;
			}
			memcpy(p->line + p->len, buf + i, k);
			p->len += k;
			i += k;
			if (!nl)
				break;
			if (p->len < 2 || p->line[p->len - 2] != '\r') {
				r = -EINVAL;
				goto fail;
			}
			p->line[p->len - 2] = '\0';
			r = do_line(p, p->line, p->len - 2);
			if (r < 0)
				goto fail;
			if (p->state != S_DONE)
				p->len = 0; /* the line's results are taken: the next one starts */
			else
				p->len -= 2; /* kept: an error's message, for the message of a failed run */
			if (p->state == S_DATA && p->left == 0)
				p->state = S_DATA_CR;
			break;
		}
		case S_DATA: {
			size_t k = len - i < p->left ? len - i : (size_t)p->left;

			p->left -= k;
			i += k;
			if (p->left == 0)
				p->state = S_DATA_CR;
			break;
		}
		case S_DATA_CR:
		case S_DATA_LF:
			if (buf[i++] != (p->state == S_DATA_CR ? '\r' : '\n')) {
				r = -EINVAL;
				goto fail;
			}
			p->state = p->state == S_DATA_CR ? S_DATA_LF : S_LINE;
			break;
		default:
			r = -EINVAL;
			goto fail;
		}
	}
	p->total += i;
	*used = i;
	if (p->state == S_DONE) {
		p->done = true;
		return 1;
	}
	return 0;
fail:
	p->state = S_FAIL;
	return r < 0 ? r : -EINVAL;
}

int mc_ratio_parse(const char *s, double *set_share)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t set, get;

	if (number(&p, end, 1000000, &set) < 0 || p == end || *p++ != ':' || number(&p, end, 1000000, &get) < 0 ||
	    p != end || set + get == 0)
		return -EINVAL;
	*set_share = (double)set / (double)(set + get);
	return 0;
}
