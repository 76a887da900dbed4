/* Agent protocol, what both sides share: the connection and its framing,
 * bounded sends and receives, the grammar of a guest's lines (pure
 * functions, fuzzed) and of a RUN's options object. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "proto_int.h"
#include "../core/clock.h"
#include "../core/util.h"
#include "../suites/suites.h"
#include "../core/banned.h"

void proto_init(struct proto_conn *c, int in, int out)
{
	memset(c, 0, sizeof(*c));
	c->in = in;
	c->out = out;
}

void proto_release(struct proto_conn *c)
{
	free(c->buf);
	c->buf = NULL;
	c->len = c->cap = 0;
	c->skipping = false;
}

void proto_fail(struct proto_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

uint64_t proto_deadline_after(int timeout_ms)
{
	return clock_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;
}

/* Milliseconds left until deadline, rounded up; 0 when it has passed. */
int proto_ms_left(uint64_t deadline)
{
	uint64_t now = clock_ns();

	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

void proto_quote(char *out, size_t outlen, const char *s, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; s[i] && i < max && o + 5 < outlen; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f)
			out[o++] = (char)ch;
		else
			str_appendf(out, outlen, &o, "\\x%02x", ch);
	}
	if (outlen)
		out[o < outlen ? o : outlen - 1] = '\0';
}

int proto_send(struct proto_conn *c, const char *fmt, ...)
{
	char *line;
	size_t off = 0, len;
	va_list ap;
	int n, r = 0;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	len = (size_t)n;
	while (off <= len) {
		/* the line, then its newline; in pieces of at most 4 KiB, each
		 * after poll says the peer takes bytes, so that a peer that
		 * stops reading is an error after PROTO_SEND_STALL_MS */
		const char *p = off < len ? line + off : "\n";
		size_t want = off < len ? len - off : 1;
		struct pollfd pfd = { .fd = c->out, .events = POLLOUT };
		ssize_t w;

		if (want > 4096)
			want = 4096;
		n = poll(&pfd, 1, PROTO_SEND_STALL_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -ETIMEDOUT;
			break;
		}
		/* a socket's peer that is gone (a killed QEMU) is -EPIPE, not a
		 * SIGPIPE that kills the host with the guest's files left behind */
		w = send(c->out, p, want, MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK)
			w = write(c->out, p, want);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0) {
			/* a reset is the peer gone, as a closed pipe */
			r = w < 0 && errno != ECONNRESET ? -errno : -EPIPE;
			break;
		}
		off += (size_t)w;
	}
	free(line);
	return r;
}

/* Read more bytes within the remaining time; 0, -ETIMEDOUT, -EPIPE (the
 * peer closed the channel, or reset it: a QEMU that was killed). */
int proto_fill(struct proto_conn *c, uint64_t deadline)
{
	struct pollfd pfd = { .fd = c->in, .events = POLLIN };
	ssize_t n;
	int r, wait = proto_ms_left(deadline);

	if (wait == 0)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, wait);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (c->cap - c->len < 65536) {
		/* geometric growth: a 64 MiB result is not copied a thousand times */
		size_t cap = c->cap ? c->cap * 2 : 65536;
		char *nb = realloc(c->buf, cap);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = cap;
	}
	n = read(c->in, c->buf + c->len, c->cap - c->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : errno == ECONNRESET ? -EPIPE : -errno;
	if (n == 0)
		return -EPIPE;
	c->len += (size_t)n;
	return 0;
}

int proto_switch(struct proto_conn *c, int in, int out, int drain_ms)
{
	uint64_t deadline = proto_deadline_after(drain_ms);
	int r;

	/* each fill reads something or ends: its end (-EPIPE) or the deadline */
	do
		r = proto_fill(c, deadline);
	while (r == 0);
	c->in = in;
	c->out = out;
	if (r == -EPIPE || r == -ETIMEDOUT)
		return 0;
	proto_fail(c, "reading the old channel: %s", strerror(-r));
	return r;
}

static void remember(struct proto_conn *c, const char *line)
{
	proto_quote(c->last[c->nlast % 8], sizeof(c->last[0]), line, sizeof(c->last[0]));
	c->nlast++;
}

int proto_frame(const char *buf, size_t len, size_t max, size_t *linelen, size_t *used)
{
	/* a line of max bytes may still carry a '\r' before its '\n' */
	size_t scan = len < max + 2 ? len : max + 2;
	const char *nl = scan ? memchr(buf, '\n', scan) : NULL;
	size_t l;

	if (!nl) {
		if (len > max + 1) {
			*used = scan; /* all of it the overlong line's; it goes on */
			return -EMSGSIZE;
		}
		return 0;
	}
	l = (size_t)(nl - buf);
	*used = l + 1;
	if (l && buf[l - 1] == '\r') /* a serial console may add it */
		l--;
	if (l > max)
		return -EMSGSIZE;
	if (memchr(buf, '\0', l))
		return -EPROTO;
	*linelen = l;
	return 1;
}

static void drop(struct proto_conn *c, size_t n)
{
	if (n == 0)
		return; /* buf may still be NULL */
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

int proto_recv_line(struct proto_conn *c, int timeout_ms, char **line)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);

	for (;;) {
		size_t l = 0, used = 0;
		char *out;
		int r;

		if (c->skipping) {
			/* the rest of an overlong line, up to its newline */
			const char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;

			drop(c, nl ? (size_t)(nl - c->buf) + 1 : c->len);
			c->skipping = !nl;
		}
		r = c->skipping ? 0 : proto_frame(c->buf, c->len, PROTO_MAX_LINE, &l, &used);
		if (r == -EMSGSIZE) {
			/* the rest of the line, after what is dropped here, is
			 * dropped as it comes: the buffer never holds it whole */
			c->skipping = c->buf[used - 1] != '\n';
			drop(c, used);
			proto_fail(c, "a line longer than %u bytes (dropped)", PROTO_MAX_LINE);
			return -EPROTO;
		}
		if (r == -EPROTO) {
			drop(c, used);
			proto_fail(c, "a line with a NUL byte (dropped)");
			return -EPROTO;
		}
		if (r == 1) {
			out = malloc(l + 1);
			if (!out)
				return -ENOMEM;
			memcpy(out, c->buf, l);
			out[l] = '\0';
			drop(c, used);
			remember(c, out);
			*line = out;
			return 0;
		}
		r = proto_fill(c, deadline);
		if (r < 0)
			return r;
	}
}

int proto_recv_bytes(struct proto_conn *c, size_t n, int timeout_ms, char **data)
{
	uint64_t deadline = proto_deadline_after(timeout_ms);
	char *out;

	while (c->len < n) {
		int r = proto_fill(c, deadline);

		if (r < 0)
			return r;
	}
	out = malloc(n + 1);
	if (!out)
		return -ENOMEM;
	memcpy(out, c->buf, n);
	out[n] = '\0';
	drop(c, n);
	*data = out;
	return 0;
}

/* Text a protocol line may carry: UTF-8, no control characters but tab. */
int proto_check_text(const char *s, char *err, size_t errlen)
{
	long bad = str_find_bad_utf8(s, strlen(s));

	if (bad >= 0)
		return errf(err, errlen, -EPROTO, "the line is not UTF-8 (byte %ld is 0x%02x)", bad,
			    (unsigned char)s[bad]);
	for (size_t i = 0; s[i]; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return errf(err, errlen, -EPROTO, "the line holds a control character (0x%02x at byte %zu)",
				    (unsigned char)s[i], i);
	return 0;
}

/* A decimal number as the protocol writes it: digits only, no sign, no
 * leading zero, at most max. The end of the digits is returned in *end. */
int proto_parse_dec(const char *s, uint64_t max, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 1 && s[0] == '0')
			return -EINVAL;
		if (v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	*out = v;
	*end = s + i;
	return 0;
}

/* Seconds as the agent writes them: digits, maybe a '.' and more digits;
 * at most a year. */
static int parse_seconds(const char *s, double *out)
{
	size_t i = 0, d = 0;
	double v;

	while (s[i] >= '0' && s[i] <= '9')
		i++, d++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			d++;
	if (!d || s[i] || i > 20 || parse_double(s, 0, 366 * 86400.0, &v) < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Seconds as a word of a line: up to the next space or the end, *p moved there. */
int proto_take_seconds(const char **p, double *out)
{
	size_t n = strcspn(*p, " ");
	char word[24];

	if (n >= sizeof(word))
		return -EINVAL;
	memcpy(word, *p, n);
	word[n] = '\0';
	*p += n;
	return parse_seconds(word, out);
}

/* A suite or suite.test word: letters, digits, '.', '_', '-'; not
 * starting with '-' (it would read as an option), at most PROTO_MAX_WHAT. */
bool proto_what_valid(const char *s, size_t len)
{
	if (!len || len > PROTO_MAX_WHAT || s[0] == '-' || s[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) || !s[i])
			return false;
	return true;
}

/* PROGRESS after its word: "<what> <seconds>" (version 1), maybe followed
 * by "<case>/<cases> <left|-> <suite.test>[ <detail>]" (version 2). The
 * fields go into m; -EINVAL when anything does not fit. */
static int parse_progress(const char *rest, struct proto_msg *m)
{
	const char *sp = strchr(rest, ' '), *p, *end;
	uint64_t k, n;
	size_t wl;

	if (!sp || !proto_what_valid(rest, (size_t)(sp - rest)))
		return -EINVAL;
	p = sp + 1;
	if (proto_take_seconds(&p, &m->seconds) < 0)
		return -EINVAL;
	if (!*p)
		return 0;
	if (proto_parse_dec(p + 1, PROTO_MAX_CASES, &k, &end) < 0 || *end != '/' ||
	    proto_parse_dec(end + 1, PROTO_MAX_CASES, &n, &end) < 0 || *end != ' ' || k < 1 || k > n)
		return -EINVAL;
	p = end + 1;
	m->left = -1;
	if (p[0] == '-' && p[1] == ' ')
		p++;
	else if (proto_take_seconds(&p, &m->left) < 0)
		return -EINVAL;
	if (*p != ' ')
		return -EINVAL;
	p++;
	wl = strcspn(p, " ");
	if (!proto_what_valid(p, wl) || !memchr(p, '.', wl) || (p[wl] == ' ' && (!p[wl + 1] || strlen(p + wl + 1) >
										      PROTO_MAX_DETAIL)))
		return -EINVAL;
	m->ncase = (size_t)k;
	m->ncases = (size_t)n;
	m->step = p;
	m->steplen = wl;
	return 0;
}

static const struct {
	const char *word;
	enum proto_kind kind;
} guest_words[] = {
	{ "HELLO", PROTO_HELLO }, { "PROGRESS", PROTO_PROGRESS }, { "RESULT", PROTO_RESULT },
	{ "ERROR", PROTO_ERROR }, { "BYE", PROTO_BYE }, { "OK", PROTO_OK }, { "SERVING", PROTO_SERVING },
	{ "PREPARED", PROTO_PREPARED }, { "LOADED", PROTO_LOADED },
};

/* LOADED after its word: "<asked> <got>", asked 0 to 100, got a percent
 * of 0 to 100 as the agent writes seconds (digits, maybe a '.' and
 * digits) or '-', which it must be when asked is 0 (nothing ran). */
static int parse_loaded(const char *rest, struct proto_msg *m)
{
	const char *end;
	uint64_t v;
	double got = NAN;

	if (proto_parse_dec(rest, 100, &v, &end) < 0 || *end != ' ')
		return -EINVAL;
	end++;
	if (!strcmp(end, "-"))
		got = NAN;
	else if (v == 0 || proto_take_seconds(&end, &got) < 0 || *end || got > 100)
		return -EINVAL;
	m->load_asked = (unsigned)v;
	m->load_got = got;
	return 0;
}

/* An address of SERVE (port false: a bare IPv4 or IPv6 literal) or
 * SERVING (port true: IPV4:PORT or [IPV6]:PORT, a port of 1 to 65535). */
bool proto_addr_valid(const char *s, bool port)
{
	char a[PROTO_MAX_ADDR + 1];
	unsigned char bin[16];
	const char *colon = port ? strrchr(s, ':') : NULL, *end;
	size_t l = port ? (colon ? (size_t)(colon - s) : 0) : strlen(s);
	uint64_t p;

	if (!l || strlen(s) > PROTO_MAX_ADDR)
		return false;
	if (port && (proto_parse_dec(colon + 1, 65535, &p, &end) < 0 || *end || p == 0))
		return false;
	if (port && s[0] == '[') {
		if (s[l - 1] != ']' || l < 3)
			return false;
		snprintf(a, sizeof(a), "%.*s", (int)(l - 2), s + 1);
		return inet_pton(AF_INET6, a, bin) == 1;
	}
	snprintf(a, sizeof(a), "%.*s", (int)l, s);
	return inet_pton(AF_INET, a, bin) == 1 || (!port && inet_pton(AF_INET6, a, bin) == 1);
}

int proto_parse_guest_line(const char *line, struct proto_msg *m, char *err, size_t errlen)
{
	const char *rest = NULL, *end;
	uint64_t v;
	int r;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < ARRAY_SIZE(guest_words); i++) {
		size_t n = strlen(guest_words[i].word);

		if (!strncmp(line, guest_words[i].word, n) && (line[n] == ' ' || line[n] == '\0')) {
			m->kind = guest_words[i].kind;
			rest = line[n] ? line + n + 1 : NULL;
			break;
		}
	}
	if (m->kind == PROTO_OTHER)
		return 0;
	r = proto_check_text(line, err, errlen);
	if (r < 0)
		return r;
	switch (m->kind) {
	case PROTO_HELLO:
		if (!rest || proto_parse_dec(rest, INT32_MAX, &v, &end) < 0 || v == 0 || *end != ' ' || !end[1])
			return errf(err, errlen, -EPROTO, "malformed HELLO: expected 'HELLO <version> <fingerprint JSON>'");
		m->version = (long)v;
		m->text = end + 1;
		return 0;
	case PROTO_PROGRESS:
		if (!rest || parse_progress(rest, m) < 0)
			return errf(err, errlen, -EPROTO, "malformed PROGRESS: expected 'PROGRESS <suite[.test]> <seconds>"
				    "[ <case>/<cases> <left seconds or -> <suite.test>[ <detail>]]'");
		m->text = rest;
		return 0;
	case PROTO_RESULT:
		if (!rest || (r = proto_parse_dec(rest, PROTO_MAX_RESULT, &v, &end)) < 0 || *end || v < 2)
			return errf(err, errlen, -EPROTO, "malformed RESULT: expected 'RESULT <length>' with a length "
				    "of 2 to %u bytes", PROTO_MAX_RESULT);
		m->length = (size_t)v;
		return 0;
	case PROTO_ERROR:
		if (!rest || !*rest)
			return errf(err, errlen, -EPROTO, "malformed ERROR: expected 'ERROR <message>'");
		m->text = rest;
		return 0;
	case PROTO_BYE:
		if (rest)
			return errf(err, errlen, -EPROTO, "malformed BYE: expected 'BYE' alone");
		return 0;
	case PROTO_OK:
		if (rest)
			return errf(err, errlen, -EPROTO, "malformed OK: expected 'OK' alone");
		return 0;
	case PROTO_SERVING:
		if (!rest || !proto_addr_valid(rest, true))
			return errf(err, errlen, -EPROTO, "malformed SERVING: expected 'SERVING <IPv4:port or "
				    "[IPv6]:port>'");
		m->text = rest;
		return 0;
	case PROTO_PREPARED:
		if (!rest || *rest != '{')
			return errf(err, errlen, -EPROTO, "malformed PREPARED: expected 'PREPARED <JSON object>'");
		m->text = rest;
		return 0;
	case PROTO_LOADED:
		if (!rest || parse_loaded(rest, m) < 0)
			return errf(err, errlen, -EPROTO, "malformed LOADED: expected 'LOADED <percent stopped, 0 to 100> "
				    "<percent it got, 0 to 100, or ->' ('-' when it stopped none)");
		return 0;
	case PROTO_OTHER:
		break;
	}
	return 0;
}

/* The run-level options of `vmbench run` a host may set in RUN: how long
 * and how often to measure, --destructive for a scratch device the lab
 * gave the guest, and --skip-fs-tests when that device has no filesystem.
 * Not --json, --db, --no-store, --label or the verbosity: the agent decides
 * where a result goes. */
const char *const proto_run_options[] = {
	"quick", "time", "warmup", "warmup-max", "budget", "threads", "cpus", "repeat", "precision", "min-reps", "max-reps",
	"destructive", "skip-fs-tests", "load", NULL,
};

static const struct vmb_opt *find_opt(const struct vmb_opt *opts, const char *name)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* The JSON types a value of each kind of option may have. */
#define JSON_T(t) (1u << (t))
static const struct value_kind {
	enum opt_type type;
	unsigned json; /* JSON_T(JSON_...) bits */
	const char *needs;
} value_kinds[] = {
	{ OPT_BOOL, JSON_T(JSON_TRUE) | JSON_T(JSON_FALSE), "true or false" },
	{ OPT_INT, JSON_T(JSON_INTEGER), "a whole number" },
	{ OPT_DOUBLE, JSON_T(JSON_INTEGER) | JSON_T(JSON_REAL), "a number" },
	{ OPT_SIZE, JSON_T(JSON_INTEGER) | JSON_T(JSON_STRING), "a whole number or a string" },
	{ OPT_LIST, JSON_T(JSON_INTEGER) | JSON_T(JSON_STRING), "a whole number or a string" },
	{ OPT_STRING, JSON_T(JSON_STRING), "a string" },
};

/* One option of RUN's object, checked by the option's own row (type and
 * range, as on a command line), into args as --PREFIXNAME[=VALUE]. */
static int run_arg(const struct vmb_opt *opts, const struct vmb_opt *o, const char *prefix, const json_t *v,
		   struct strv *args, char *err, size_t errlen)
{
	char val[4096], msg[256];
	const struct value_kind *kind = NULL;
	struct optset set;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(value_kinds); i++)
		if (value_kinds[i].type == o->type)
			kind = &value_kinds[i];
	if (!kind)
		return errf(err, errlen, -EINVAL, "option '%s%s' cannot be set over the agent protocol", prefix, o->name);
	if (!(kind->json & (1u << json_typeof(v))))
		return errf(err, errlen, -EINVAL, "option '%s%s' needs %s", prefix, o->name, kind->needs);
	if (json_is_false(v))
		return 0;
	if (json_is_string(v)) {
		if (json_string_length(v) >= sizeof(val) || strlen(json_string_value(v)) != json_string_length(v) ||
		    proto_check_text(json_string_value(v), msg, sizeof(msg)) < 0)
			return errf(err, errlen, -EINVAL, "option '%s%s': the value is not one line of text", prefix,
				    o->name);
		snprintf(val, sizeof(val), "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		/* the shortest text of the same number: 0.3, not 0.29999999999999999,
		 * in the command line the guest's document records */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(val, sizeof(val), "%.*g", prec, json_real_value(v));
			if (strtod(val, NULL) == json_real_value(v))
				break;
		}
	} else {
		val[0] = '\0';
	}
	if (o->type != OPT_BOOL) {
		/* the row's own parser: the same range and messages as a command line */
		r = optset_init(&set, opts, prefix);
		if (r < 0)
			return errf(err, errlen, r, "option '%s%s': internal error", prefix, o->name);
		r = optset_apply(&set, (size_t)(o - opts), val, msg, sizeof(msg));
		optset_release(&set);
		if (r < 0)
			return errf(err, errlen, -EINVAL, "%s", msg);
	}
	{
		char *a = o->type == OPT_BOOL ? xasprintf("--%s%s", prefix, o->name) :
						xasprintf("--%s%s=%s", prefix, o->name, val);

		r = a ? strv_push(args, a) : -ENOMEM;
		free(a);
	}
	return r < 0 ? errf(err, errlen, r, "out of memory") : 0;
}

int proto_run_args(const json_t *opts, const struct vmb_opt *run_opts, const struct vmb_suite *only,
		   const char *what, struct strv *args, char *err, size_t errlen)
{
	struct strv out = { 0 };
	const char *k, *dot;
	char q[120], prefix[PROTO_MAX_WHAT + 2];
	json_t *v;
	int r = 0;

	json_object_foreach((json_t *)opts, k, v) {
		const struct vmb_suite *s = NULL;
		const struct vmb_opt *o = NULL;

		proto_quote(q, sizeof(q), k, 80);
		dot = strchr(k, '.');
		if (dot && (size_t)(dot - k) < sizeof(prefix) - 1) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - k), k);
			s = only && !strcmp(only->name, prefix) ? only : only ? NULL : suites_find(prefix);
		}
		if (s) {
			o = find_opt(s->opts, dot + 1);
			if (!o) {
				r = errf(err, errlen, -EINVAL, "options for %s: suite %s has no option '%s' (see "
					 "`vmbench list`)", what, s->name, q + (dot - k) + 1);
				break;
			}
			snprintf(prefix, sizeof(prefix), "%s.", s->name);
			r = run_arg(s->opts, o, prefix, v, &out, err, errlen);
		} else {
			for (size_t i = 0; proto_run_options[i] && !o; i++)
				if (!strcmp(k, proto_run_options[i]))
					o = find_opt(run_opts, k);
			if (!o) {
				char valid[256] = "";
				size_t off = 0;

				for (size_t i = 0; proto_run_options[i] && off < sizeof(valid); i++)
					str_appendf(valid, sizeof(valid), &off, ", %s", proto_run_options[i]);
				r = errf(err, errlen, -EINVAL, "options for %s: '%s' is not an option a host may set; "
					 "valid: %s.OPTION%s", what, q, only ? only->name : "SUITE", valid);
				break;
			}
			r = run_arg(run_opts, o, "", v, &out, err, errlen);
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		strv_clear(&out);
		return r;
	}
	for (size_t i = 0; i < out.n && r == 0; i++)
		r = strv_push(args, out.v[i]);
	strv_clear(&out);
	return r < 0 ? errf(err, errlen, r, "out of memory") : 0;
}

/* Is the test a PROGRESS names one of the RUN `what` asked for: a test of
 * its suite, or the test itself? */
bool proto_step_of(const char *what, const struct proto_msg *m)
{
	const char *dot = strchr(what, '.');
	size_t sl = dot ? (size_t)(dot - what) : strlen(what);

	if (dot)
		return m->steplen == strlen(what) && !strncmp(m->step, what, m->steplen);
	return m->steplen > sl && !strncmp(m->step, what, sl) && m->step[sl] == '.';
}

/* A /dev/NAME the protocol names: letters and digits after /dev/. */
bool proto_device_valid(const char *s)
{
	size_t n = strlen(s);

	if (strncmp(s, "/dev/", 5) || n <= 5 || n >= PROTO_MAX_DEVICE + 1)
		return false;
	for (size_t i = 5; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", s[i]))
			return false;
	return true;
}

int proto_parse_run(const char *line, const struct vmb_opt *run_opts, struct proto_run *run, char *err,
		    size_t errlen)
{
	struct proto_run out = { 0 };
	const struct vmb_suite *s;
	const char *w, *sp, *dot;
	char q[120], suite[PROTO_MAX_WHAT + 1];
	json_error_t je;
	json_t *opts;
	int r;

	if (strncmp(line, "RUN ", 4) || !(sp = strchr(line + 4, ' ')))
		return errf(err, errlen, -EPROTO, "expected 'RUN <suite[.test]> <options JSON>'");
	w = line + 4;
	if (!proto_what_valid(w, (size_t)(sp - w))) {
		proto_quote(q, sizeof(q), w, (size_t)(sp - w) < 80 ? (size_t)(sp - w) : 80);
		return errf(err, errlen, -EINVAL, "'%s' is not a suite or test name", q);
	}
	snprintf(out.what, sizeof(out.what), "%.*s", (int)(sp - w), w);
	dot = strchr(out.what, '.');
	snprintf(suite, sizeof(suite), "%.*s", dot ? (int)(dot - out.what) : (int)strlen(out.what), out.what);
	s = suites_find(suite);
	if (!s || (dot && suites_test_index(s, dot + 1) < 0)) {
		char valid[256] = "";
		size_t off = 0;

		if (!s)
			for (size_t i = 0; i < vmb_nsuites && off < sizeof(valid); i++)
				str_appendf(valid, sizeof(valid), &off, "%s%s", i ? ", " : "", vmb_suites[i]->name);
		else
			for (int i = 0; s->tests[i].name && off < sizeof(valid); i++)
				str_appendf(valid, sizeof(valid), &off, "%s%s", i ? ", " : "", s->tests[i].name);
		if (!s)
			return errf(err, errlen, -ENOENT, "unknown suite '%s'; valid suites: %s", suite, valid);
		return errf(err, errlen, -ENOENT, "unknown test '%s' in suite %s; valid tests: %s", dot + 1, suite,
			    valid);
	}
	opts = json_loads(sp + 1, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(opts)) {
		json_decref(opts);
		return errf(err, errlen, -EINVAL, "options for %s: %s", out.what,
			    opts ? "not a JSON object" : je.text);
	}
	r = proto_run_args(opts, run_opts, s, out.what, &out.args, err, errlen);
	if (r < 0)
		goto fail;
	json_decref(opts);
	*run = out;
	return 0;
fail:
	json_decref(opts);
	strv_clear(&out.args);
	return r;
}

void proto_run_release(struct proto_run *run)
{
	strv_clear(&run->args);
}

int proto_run_argv(const struct proto_run *run, const char *extra, struct strv *argv)
{
	/* where the result goes is the runner's decision, never the request's:
	 * "--" keeps the suite word from reading as an option */
	static const char *const tail[] = { "--no-store", "-q", "--json=-", "--" };
	int r = strv_push(argv, "vmbench");

	if (r == 0)
		r = strv_push(argv, "run");
	if (r == 0 && extra)
		r = strv_push(argv, extra);
	for (size_t i = 0; r == 0 && i < run->args.n; i++)
		r = strv_push(argv, run->args.v[i]);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(tail); i++)
		r = strv_push(argv, tail[i]);
	if (r == 0)
		r = strv_push(argv, run->what);
	if (r < 0)
		strv_clear(argv);
	return r;
}
