/* serve's HTTP request parser and net.http's response parser (see http.h):
 * pure functions over a byte range, fuzzed by tests/fuzz/fuzz_httpreq.c
 * and fuzz_httpresp.c. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "../core/banned.h"

/* RFC 9110 5.6.2: the characters of a method or a header name, as a table:
 * the response parser's hot loop tests every byte of a name */
static const bool tchar_tab[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1,
	['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
	['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static bool tchar(char c)
{
	return tchar_tab[(unsigned char)c];
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

/* ---- the response parser: a state machine over bytes as they come ---- */

enum {
	R_VERSION, /* "HTTP/1." */
	R_MINOR,
	R_SP,
	R_CODE,
	R_CODE_END,
	R_REASON,
	R_STATUS_LF,
	R_FIELD, /* a header line begins, or the blank line */
	R_NAME,
	R_OWS,    /* white space before a token of a value we read */
	R_TOKEN,  /* in it */
	R_AFTER,  /* white space after it */
	R_SKIP,   /* a value we do not read */
	R_FIELD_LF,
	R_HEAD_LF,
	R_LENGTH, /* the body, by its count */
	R_CLOSE,  /* the body, to the close */
	R_CHUNK_SIZE,
	R_CHUNK_WS,
	R_CHUNK_EXT,
	R_CHUNK_LF,
	R_CHUNK_DATA,
	R_CHUNK_CR,
	R_CHUNK_DATA_LF,
	R_TRAILER, /* a trailer line begins, or the blank line that ends the body */
	R_TRAILER_NAME,
	R_TRAILER_VALUE,
	R_TRAILER_LF,
	R_END_LF,
	R_DONE,
	R_FAILED, /* after an error */
};

/* the header fields whose values we read */
enum { F_OTHER, F_LENGTH, F_TE, F_CONNECTION };

/* A byte a field value, reason phrase or chunk extension may hold: HTAB,
 * SP, VCHAR and obs-text (RFC 9110 5.5); no other control byte, no DEL. */
static inline bool text_byte(unsigned char c)
{
	return (c >= 0x20 && c != 0x7f) || c == '\t';
}

/* The bytes up to the next CR (or the end), all text_byte()s: where it
 * stopped, or NULL at a byte that is not text. Most of a head's bytes go
 * through here (every value we do not read, the reason phrase), so eight
 * at a time: a word with no byte below 0x20 and none of 0x7f goes on at
 * once; the first byte that has one (exact, the lowest flagged) is looked
 * at alone: a tab goes on, a CR ends, anything else is refused. */
static const char *text_to_cr(const char *c, const char *end)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);

	while (c < end) {
		while (end - c >= 8) {
			uint64_t x, del, m;

			memcpy(&x, c, 8);
			del = x ^ (ones * 0x7f);
			m = ((x - ones * 0x20) & ~x & highs) | ((del - ones) & ~del & highs);
			if (m) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				c += __builtin_ctzll(m) / 8;
#else
				c += __builtin_clzll(m) / 8;
#endif
				break;
			}
			c += 8;
		}
		for (; c < end && text_byte((unsigned char)*c) && *c != '\t'; c++)
			;
		if (c == end || *c == '\r')
			return c;
		if (*c != '\t')
			return NULL;
		c++;
	}
	return c;
}

/* The header name s[0, n) in any case equals lit (lower case letters and
 * '-'); tchars other than letters are not changed by | 0x20 into either. */
static bool lower_eq(const char *s, const char *lit, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((s[i] | 0x20) != lit[i]) /* a name's bytes are tchars: only letters change */
			return false;
	return true;
}

static inline char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void nethttp_resp_init(struct nethttp_resp *p, bool to_head)
{
	memset(p, 0, sizeof(*p));
	p->to_head = to_head;
	p->state = R_VERSION;
}

/* A status line and header fields follow (the first head, or the one after
 * an interim response): what the previous one said is forgotten. */
static void resp_next_head(struct nethttp_resp *p)
{
	p->state = R_VERSION;
	p->num = 0;
	p->have_len = p->have_te = p->te_chunked = p->conn_close = p->conn_keep = false;
}

/* A token of a value we read is complete: word[] holds its first bytes,
 * lower case (a Content-Length's digits were read into num instead). */
static int resp_token(struct nethttp_resp *p)
{
	const char *t = p->word;

	switch (p->field) {
	case F_LENGTH:
		if (p->have_len && p->num != p->length)
			return -EINVAL; /* two that differ: which one frames the body? */
		p->length = p->num;
		p->have_len = true;
		return 0;
	case F_TE:
		/* the last coding decides: chunked must be the final one */
		p->te_chunked = p->wlen == 7 && !memcmp(t, "chunked", 7);
		return 0;
	case F_CONNECTION:
		if (p->wlen == 5 && !memcmp(t, "close", 5))
			p->conn_close = true;
		else if (p->wlen == 10 && !memcmp(t, "keep-alive", 10))
			p->conn_keep = true;
		return 0;
	}
	return 0;
}

/* The blank line after the header fields: how the body is framed. */
static int resp_head_end(struct nethttp_resp *p)
{
	if (p->status < 200) {
		if (p->status == 101)
			return -EINVAL; /* switching protocols: nobody asked to */
		resp_next_head(p);  /* an interim response: the final one follows */
		return 0;
	}
	p->head_done = true;
	p->close_after = p->conn_close || (p->minor == 0 && !p->conn_keep);
	if (p->have_te && (p->have_len || p->minor == 0))
		return -EINVAL; /* RFC 9112 6.1 and 6.3: a sign of smuggling, never guessed */
	if (p->to_head || p->status == 204 || p->status == 304) {
		p->framing = NETHTTP_NO_BODY;
		p->state = R_DONE;
	} else if (p->have_te && p->te_chunked) {
		p->framing = NETHTTP_CHUNKED;
		p->state = R_CHUNK_SIZE;
		p->num = 0;
		p->line = 0;
		p->idx = 0;
	} else if (p->have_len) {
		p->framing = NETHTTP_LENGTH;
		p->left = p->length;
		p->state = p->length ? R_LENGTH : R_DONE;
	} else {
		/* another final coding, or no length: the body ends with the connection */
		p->framing = NETHTTP_TO_CLOSE;
		p->close_after = true;
		p->state = R_CLOSE;
	}
	return 0;
}

/* The parser proper. Every state takes one byte, but the ones where most
 * bytes go (a reason phrase, a value we do not read, a name, a body or a
 * chunk's data) run on in a loop of their own. */
static int resp_run(struct nethttp_resp *p, const char *buf, size_t len, size_t *used)
{
	const char *c = buf, *end = buf + len, *head = buf; /* head: from where the head's bytes are not counted yet */
	int r;

	while (c < end) {
		switch (p->state) {
		case R_VERSION:
			if (p->idx == 0 && end - c > 7 && !memcmp(c, "HTTP/1.", 7)) {
				c += 7; /* the whole of it here: at once */
				p->state = R_MINOR;
				continue;
			}
			if (*c != "HTTP/1."[p->idx])
				return -EINVAL;
			if (++p->idx == 7) {
				p->idx = 0;
				p->state = R_MINOR;
			}
			break;
		case R_MINOR:
			if (*c != '0' && *c != '1')
				return -EINVAL;
			p->minor = (uint8_t)(*c - '0');
			p->state = R_SP;
			break;
		case R_SP:
			if (*c != ' ')
				return -EINVAL;
			p->state = R_CODE;
			p->status = 0;
			p->idx = 0;
			break;
		case R_CODE:
			if (*c < '0' || *c > '9')
				return -EINVAL;
			p->status = p->status * 10 + (*c - '0');
			if (++p->idx == 3) {
				p->idx = 0;
				if (p->status < 100 || p->status > 599)
					return -EINVAL;
				p->state = R_CODE_END;
			}
			break;
		case R_CODE_END:
			/* a reason phrase, maybe empty, or none at all (RFC 9112 4 asks
			 * for the space; servers that leave it out are read alike) */
			if (*c == ' ')
				p->state = R_REASON;
			else if (*c == '\r')
				p->state = R_STATUS_LF;
			else
				return -EINVAL;
			break;
		case R_REASON:
			c = text_to_cr(c, end);
			if (!c)
				return -EINVAL;
			if (c == end)
				continue;
			p->state = R_STATUS_LF;
			break;
		case R_STATUS_LF:
		case R_FIELD_LF:
			if (*c != '\n')
				return -EINVAL;
			p->state = R_FIELD;
			break;
		case R_FIELD:
			if (*c == '\r') {
				p->state = R_HEAD_LF;
				break;
			}
			/* no name (a space: the obsolete line folding) is refused */
			if (!tchar_tab[(unsigned char)*c])
				return -EINVAL;
			p->wlen = 0;
			p->state = R_NAME;
			/* fall through - the same byte is the name's first */
		case R_NAME: {
			/* the name is compared where it lies; only a name cut by the
			 * end of a read is kept, in word[], as far as any we read */
			const char *s0 = c, *nm;
			size_t nl;

			while (end - c >= 4 && (tchar_tab[(unsigned char)c[0]] & tchar_tab[(unsigned char)c[1]] &
						tchar_tab[(unsigned char)c[2]] & tchar_tab[(unsigned char)c[3]]))
				c += 4; /* four at a time: one branch, not four */
			while (c < end && tchar_tab[(unsigned char)*c])
				c++;
			if (c == end || p->wlen) {
				for (const char *q = s0; q < c; q++) {
					if (p->wlen < sizeof(p->word))
						p->word[p->wlen++] = lower(*q);
					else
						p->wlen = UINT8_MAX; /* longer than any we read */
				}
				if (c == end)
					continue;
				nm = p->word;
				nl = p->wlen;
			} else {
				nm = s0;
				nl = (size_t)(c - s0);
			}
			if (*c != ':')
				return -EINVAL;
			p->field = F_OTHER;
			if (nl == 14 && lower_eq(nm, "content-length", 14))
				p->field = F_LENGTH;
			else if (nl == 17 && lower_eq(nm, "transfer-encoding", 17))
				p->field = F_TE;
			else if (nl == 10 && lower_eq(nm, "connection", 10))
				p->field = F_CONNECTION;
			/* present, even empty: with a Content-Length, a conflict */
			p->have_te |= p->field == F_TE;
			p->state = p->field == F_OTHER ? R_SKIP : R_OWS;
			p->wlen = 0;
			break;
		}
		case R_SKIP:
			c = text_to_cr(c, end);
			if (!c)
				return -EINVAL;
			if (c == end)
				continue;
			if (end - c > 2 && c[1] == '\n') {
				c += 2; /* the line's end here: on to the next line */
				p->state = R_FIELD;
				continue;
			}
			p->state = R_FIELD_LF;
			break;
		case R_OWS:
			if (*c == ' ' || *c == '\t')
				break;
			if (*c == '\r' || *c == ',') {
				/* an empty value or list element: no length, no coding */
				if (p->field == F_LENGTH)
					return -EINVAL;
				p->state = *c == '\r' ? R_FIELD_LF : R_OWS;
				break;
			}
			p->wlen = 0;
			p->num = 0;
			p->state = R_TOKEN;
			continue;
		case R_TOKEN:
			if (*c == ' ' || *c == '\t' || *c == ',' || *c == '\r') {
				if (*c == ',' && p->field == F_LENGTH)
					return -EINVAL; /* "5, 5": one length, not a list */
				r = resp_token(p);
				if (r < 0)
					return r;
				p->state = *c == ',' ? R_OWS : *c == '\r' ? R_FIELD_LF : R_AFTER;
				break;
			}
			if (!text_byte((unsigned char)*c))
				return -EINVAL;
			if (p->field == F_LENGTH) {
				/* 1 to 15 digits, nothing else: "-1", "+5", "0x10" and a
				 * number past the bound are refused, not read as another */
				if (*c < '0' || *c > '9' || p->wlen >= 15)
					return -EINVAL;
				p->num = p->num * 10 + (uint64_t)(*c - '0');
				if (p->num > NETHTTP_MAX_BODY)
					return -EINVAL;
				p->wlen++;
				break;
			}
			if (p->wlen < sizeof(p->word))
				p->word[p->wlen++] = lower(*c);
			else
				p->wlen = UINT8_MAX;
			break;
		case R_AFTER:
			if (*c == ' ' || *c == '\t')
				break;
			if (*c == '\r')
				p->state = R_FIELD_LF;
			else if (*c == ',' && p->field != F_LENGTH)
				p->state = R_OWS;
			else
				return -EINVAL;
			break;
		case R_HEAD_LF:
			if (*c != '\n')
				return -EINVAL;
			p->headlen += (size_t)(c + 1 - head);
			head = c + 1;
			if (p->headlen > NETHTTP_MAX_HEAD)
				return -EMSGSIZE;
			r = resp_head_end(p);
			if (r < 0)
				return r;
			if (p->state == R_DONE) {
				*used = (size_t)(c + 1 - buf);
				return 1;
			}
			break;
		case R_LENGTH:
		case R_CHUNK_DATA: {
			size_t n = (size_t)(end - c) < p->left ? (size_t)(end - c) : (size_t)p->left;

			p->left -= n;
			p->body += n;
			c += n;
			if (p->left)
				continue;
			if (p->state == R_CHUNK_DATA) {
				p->state = R_CHUNK_CR;
				continue;
			}
			p->state = R_DONE;
			*used = (size_t)(c - buf);
			return 1;
		}
		case R_CLOSE: {
			size_t n = (size_t)(end - c);

			if (n > NETHTTP_MAX_BODY - p->body)
				return -EINVAL;
			p->body += n;
			c = end;
			continue;
		}
		case R_CHUNK_SIZE:
			/* hex digits (leading zeros too, within the line's bound) */
			if (++p->line > NETHTTP_MAX_CHUNK_LINE)
				return -EMSGSIZE;
			if (hexval(*c) >= 0) {
				p->num = p->num * 16 + (uint64_t)hexval(*c);
				if (p->num > NETHTTP_MAX_BODY - p->body)
					return -EINVAL; /* the body's bound, over all chunks */
				p->idx = 1; /* a digit was seen */
				break;
			}
			if (!p->idx)
				return -EINVAL;
			if (*c == ';')
				p->state = R_CHUNK_EXT;
			else if (*c == ' ' || *c == '\t')
				p->state = R_CHUNK_WS;
			else if (*c == '\r')
				p->state = R_CHUNK_LF;
			else
				return -EINVAL;
			break;
		case R_CHUNK_WS:
			/* BWS before an extension's ';' (RFC 9112 7.1.1), nothing else */
			if (++p->line > NETHTTP_MAX_CHUNK_LINE)
				return -EMSGSIZE;
			if (*c == ';')
				p->state = R_CHUNK_EXT;
			else if (*c != ' ' && *c != '\t')
				return -EINVAL;
			break;
		case R_CHUNK_EXT:
			/* name[=value] pairs, quoted or not: read past, not interpreted */
			if (++p->line > NETHTTP_MAX_CHUNK_LINE)
				return -EMSGSIZE;
			if (*c == '\r')
				p->state = R_CHUNK_LF;
			else if (!text_byte((unsigned char)*c))
				return -EINVAL;
			break;
		case R_CHUNK_LF:
			if (*c != '\n')
				return -EINVAL;
			if (p->num == 0) {
				p->state = R_TRAILER; /* the last chunk */
				p->line = 0;
			} else {
				p->left = p->num;
				p->state = R_CHUNK_DATA;
			}
			break;
		case R_CHUNK_CR:
			if (*c != '\r')
				return -EINVAL; /* more data than the chunk's size said */
			p->state = R_CHUNK_DATA_LF;
			break;
		case R_CHUNK_DATA_LF:
			if (*c != '\n')
				return -EINVAL;
			p->state = R_CHUNK_SIZE;
			p->num = 0;
			p->line = 0;
			p->idx = 0;
			break;
		case R_TRAILER:
		case R_TRAILER_NAME:
		case R_TRAILER_VALUE:
		case R_TRAILER_LF:
			/* trailer fields: read as header lines are, and ignored */
			if (++p->line > NETHTTP_MAX_HEAD)
				return -EMSGSIZE;
			if (p->state == R_TRAILER) {
				if (*c == '\r')
					p->state = R_END_LF;
				else if (tchar_tab[(unsigned char)*c])
					p->state = R_TRAILER_NAME;
				else
					return -EINVAL;
			} else if (p->state == R_TRAILER_NAME) {
				if (*c == ':')
					p->state = R_TRAILER_VALUE;
				else if (!tchar_tab[(unsigned char)*c])
					return -EINVAL;
			} else if (p->state == R_TRAILER_VALUE) {
				if (*c == '\r')
					p->state = R_TRAILER_LF;
				else if (!text_byte((unsigned char)*c))
					return -EINVAL;
			} else {
				if (*c != '\n')
					return -EINVAL;
				p->state = R_TRAILER;
			}
			break;
		case R_END_LF:
			if (*c != '\n')
				return -EINVAL;
			p->state = R_DONE;
			*used = (size_t)(c + 1 - buf);
			return 1;
		default: /* R_DONE, R_FAILED: nothing more is taken */
			return -EINVAL;
		}
		c++;
	}
	if (!p->head_done) {
		p->headlen += (size_t)(end - head);
		if (p->headlen > NETHTTP_MAX_HEAD)
			return -EMSGSIZE;
	}
	*used = len;
	return 0;
}

int nethttp_resp_feed(struct nethttp_resp *p, const char *buf, size_t len, size_t *used)
{
	size_t u = 0;
	int r = resp_run(p, buf, len, &u);

	if (r < 0) {
		p->state = R_FAILED;
		return r;
	}
	p->done = r == 1;
	*used = u;
	return r;
}

int nethttp_resp_eof(struct nethttp_resp *p)
{
	if (p->state == R_CLOSE)
		p->state = R_DONE;
	if (p->state != R_DONE)
		return -EPIPE;
	p->done = true;
	return 0;
}
