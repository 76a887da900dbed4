/* serve's HTTP request parser and net.http's response parser (see http.h):
 * pure functions over a byte range, fuzzed by tests/fuzz/fuzz_httpreq.c
 * and fuzz_httpresp.c. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "../core/banned.h"

/* RFC 9110 5.6.2: the characters of a method or a header name */
static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Where the blank line ends the head: the head's length, or 0. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n')
			return i + 4;
	return 0;
}

/* A decimal number of 1 to maxdig digits and nothing else: 0, or -EINVAL. */
static int digits(const char *s, size_t n, size_t maxdig, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > maxdig)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* A header field's value with its optional white space around it removed. */
static void trim(const char **v, size_t *n)
{
	while (*n && (**v == ' ' || **v == '\t')) {
		(*v)++;
		(*n)--;
	}
	while (*n && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
		(*n)--;
}

static bool word_is(const char *v, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(v, w, n) == 0;
}

/* Calls fn(name, namelen, value, valuelen, arg) for every header line of
 * the head [p, end) (each line ending in CRLF, the last one blank).
 * -EINVAL on a malformed line, else what fn returns first below 0, else 0. */
typedef int (*header_fn)(const char *name, size_t nl, const char *val, size_t vl, void *arg);

static int each_header(const char *p, const char *end, header_fn fn, void *arg)
{
	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p)), *colon;
		size_t vl;
		int r;

		if (!eol || eol + 1 >= end || eol[1] != '\n')
			return -EINVAL;
		if (eol == p)
			return 0; /* the blank line */
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon == p)
			return -EINVAL;
		for (const char *q = p; q < colon; q++)
			if (!tchar(*q))
				return -EINVAL;
		for (const char *q = colon + 1; q < eol; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t')
				return -EINVAL; /* a control byte (a NUL, a bare LF) in a value */
		{
			const char *v = colon + 1;

			vl = (size_t)(eol - v);
			trim(&v, &vl);
			r = fn(p, (size_t)(colon - p), v, vl, arg);
		}
		if (r < 0)
			return r;
		p = eol + 2;
	}
	return -EINVAL;
}

static int req_header(const char *name, size_t nl, const char *val, size_t vl, void *arg)
{
	struct nethttp_req *q = arg;

	if (word_is(name, nl, "connection")) {
		if (word_is(val, vl, "close"))
			q->close_after = true;
		else if (word_is(val, vl, "keep-alive"))
			q->close_after = false;
	}
	return 0;
}

int nethttp_parse_request(const char *buf, size_t len, uint64_t max_static, struct nethttp_req *out)
{
	struct nethttp_req q;
	size_t hl = head_end(buf, len), i, m, t0, t1;
	const char *eol;
	int r;

	if (!hl)
		return -EAGAIN;
	memset(&q, 0, sizeof(q));
	q.headlen = hl;
	eol = memchr(buf, '\r', hl);
	if (eol[1] != '\n')
		return -EINVAL;
	/* METHOD SP TARGET SP HTTP/1.x CRLF, nothing else on the line */
	for (m = 0; m < 16 && m < hl && tchar(buf[m]); m++)
		;
	if (m == 0 || buf[m] != ' ')
		return -EINVAL;
	t0 = m + 1;
	for (i = t0; buf + i < eol && (unsigned char)buf[i] > 0x20 && (unsigned char)buf[i] < 0x7f; i++)
		;
	t1 = i;
	if (t1 == t0 || buf[t1] != ' ' || eol - (buf + t1 + 1) != 8 || memcmp(buf + t1 + 1, "HTTP/1.", 7) ||
	    (buf[t1 + 8] != '0' && buf[t1 + 8] != '1'))
		return -EINVAL;
	/* keep-alive unless asked to close (1.1) or not asked to keep (1.0) */
	q.close_after = buf[t1 + 8] == '0';
	r = each_header(eol + 2, buf + hl, req_header, &q);
	if (r < 0)
		return r;
	if (m != 3 || memcmp(buf, "GET", 3)) {
		q.page = NETHTTP_BAD_METHOD;
	} else if (t1 - t0 > 8 && !memcmp(buf + t0, "/static/", 8) &&
		   digits(buf + t0 + 8, t1 - t0 - 8, 7, &q.size) == 0 && q.size <= max_static) {
		q.page = NETHTTP_STATIC;
	} else if (t1 - t0 == 8 && !memcmp(buf + t0, "/dynamic", 8)) {
		q.page = NETHTTP_DYNAMIC;
	} else {
		q.page = NETHTTP_NOT_FOUND;
		q.size = 0;
	}
	*out = q;
	return 0;
}

struct resp_seen {
	struct nethttp_resp *p;
	bool have_len;
};

static int resp_header(const char *name, size_t nl, const char *val, size_t vl, void *arg)
{
	struct resp_seen *s = arg;

	if (word_is(name, nl, "content-length")) {
		uint64_t v;

		/* 1e15 at most before the bound: a "-1" or "+5" or "1 2" is refused */
		if (digits(val, vl, 15, &v) < 0 || v > NETHTTP_MAX_BODY || (s->have_len && v != s->p->body))
			return -EINVAL;
		s->p->body = v;
		s->have_len = true;
	} else if (word_is(name, nl, "connection")) {
		if (word_is(val, vl, "close"))
			s->p->close_after = true;
		else if (word_is(val, vl, "keep-alive"))
			s->p->close_after = false;
	} else if (word_is(name, nl, "transfer-encoding")) {
		return -ENOTSUP; /* chunked bodies: not supported, counted as errors */
	}
	return 0;
}

int nethttp_parse_response(const char *buf, size_t len, struct nethttp_resp *out)
{
	struct nethttp_resp p;
	struct resp_seen s = { &p, false };
	size_t hl = head_end(buf, len);
	const char *eol;
	int r;

	if (!hl)
		return -EAGAIN;
	memset(&p, 0, sizeof(p));
	p.headlen = hl;
	eol = memchr(buf, '\r', hl);
	if (eol[1] != '\n')
		return -EINVAL;
	/* HTTP/1.x SP DDD [SP reason] CRLF */
	if (eol - buf < 12 || memcmp(buf, "HTTP/1.", 7) || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ' ||
	    (eol - buf > 12 && buf[12] != ' '))
		return -EINVAL;
	for (int i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		p.status = p.status * 10 + (buf[i] - '0');
	}
	if (p.status < 100 || p.status > 599)
		return -EINVAL;
	p.close_after = buf[7] == '0';
	r = each_header(eol + 2, buf + hl, resp_header, &s);
	if (r < 0)
		return r;
	/* 1xx, 204 and 304 have no body; any other needs its length said */
	if (!s.have_len && !(p.status < 200 || p.status == 204 || p.status == 304))
		return -EINVAL;
	if (!s.have_len)
		p.body = 0;
	*out = p;
	return 0;
}
