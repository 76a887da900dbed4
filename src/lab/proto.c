/* Agent protocol: framing, host side with validation and timeouts. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "../core/clock.h"
#include "../core/util.h"
#include "../store/doc.h"
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
}

static void fail(struct proto_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct proto_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

int proto_send(struct proto_conn *c, const char *fmt, ...)
{
	char *line;
	size_t off = 0, len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	len = (size_t)n;
	while (off <= len) {
		/* the line, then its newline */
		const char *p = off < len ? line + off : "\n";
		size_t want = off < len ? len - off : 1;
		ssize_t w = write(c->out, p, want);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(line);
			return w < 0 ? -errno : -EPIPE;
		}
		off += (size_t)w;
	}
	free(line);
	return 0;
}

/* Read more bytes within the remaining time; 0, -ETIMEDOUT, -EPIPE. */
static int fill(struct proto_conn *c, uint64_t deadline)
{
	struct pollfd pfd = { .fd = c->in, .events = POLLIN };
	uint64_t now = clock_ns();
	ssize_t n;
	int r;

	if (now >= deadline)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000));
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (c->cap - c->len < 65536) {
		char *nb = realloc(c->buf, c->cap + 65536);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap += 65536;
	}
	n = read(c->in, c->buf + c->len, c->cap - c->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		return -EPIPE;
	c->len += (size_t)n;
	return 0;
}

static void remember(struct proto_conn *c, const char *line)
{
	snprintf(c->last[c->nlast % 8], sizeof(c->last[0]), "%s", line);
	c->nlast++;
}

int proto_recv_line(struct proto_conn *c, int timeout_ms, char **line)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		char *nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		int r;

		if (nl) {
			size_t l = (size_t)(nl - c->buf);
			char *out;

			if (memchr(c->buf, '\0', l))
				return -EPROTO;
			out = malloc(l + 1);
			if (!out)
				return -ENOMEM;
			memcpy(out, c->buf, l);
			out[l] = '\0';
			if (l && out[l - 1] == '\r') /* a serial console may add it */
				out[l - 1] = '\0';
			memmove(c->buf, nl + 1, c->len - l - 1);
			c->len -= l + 1;
			remember(c, out);
			*line = out;
			return 0;
		}
		if (c->len > PROTO_MAX_LINE)
			return -EPROTO;
		r = fill(c, deadline);
		if (r < 0)
			return r;
	}
}

int proto_recv_bytes(struct proto_conn *c, size_t n, int timeout_ms, char **data)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;
	char *out;

	while (c->len < n) {
		int r = fill(c, deadline);

		if (r < 0)
			return r;
	}
	out = malloc(n + 1);
	if (!out)
		return -ENOMEM;
	memcpy(out, c->buf, n);
	out[n] = '\0';
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
	*data = out;
	return 0;
}

static void io_fail(struct proto_conn *c, int r, const char *waiting)
{
	if (r == -ETIMEDOUT)
		fail(c, "the guest sent nothing while %s (timed out)", waiting);
	else if (r == -EPIPE)
		fail(c, "the guest closed the channel while %s", waiting);
	else if (r == -EPROTO)
		fail(c, "the guest sent a line that is too long or holds a NUL byte while %s", waiting);
	else
		fail(c, "%s while %s", strerror(-r), waiting);
}

/* Lines before HELLO are console noise (a kernel or init printing on the
 * same port); they are skipped, within the time limit. */
int proto_host_hello(struct proto_conn *c, int timeout_ms, json_t **fingerprint)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		uint64_t now = clock_ns();
		char *line = NULL, *sp;
		int64_t ver;
		json_t *fp;
		json_error_t je;
		int r = now < deadline ? proto_recv_line(c, (int)((deadline - now) / 1000000), &line) : -ETIMEDOUT;

		if (r < 0) {
			io_fail(c, r, "waiting for HELLO");
			return r;
		}
		if (!str_has_prefix(line, "HELLO ")) {
			free(line);
			continue;
		}
		sp = strchr(line + 6, ' ');
		if (sp)
			*sp = '\0';
		if (parse_i64(line + 6, 1, INT32_MAX, &ver) < 0 || !sp) {
			fail(c, "malformed HELLO: expected 'HELLO <version> <fingerprint JSON>'");
			free(line);
			return -EPROTO;
		}
		if (ver != PROTO_VERSION) {
			fail(c, "the guest agent speaks protocol version %lld, this host %d: rebuild the guest image",
			     (long long)ver, PROTO_VERSION);
			free(line);
			return -EPROTONOSUPPORT;
		}
		fp = json_loads(sp + 1, 0, &je);
		free(line);
		if (!json_is_object(fp) || !json_is_object(json_object_get(fp, "hypervisor"))) {
			fail(c, "HELLO carries no valid fingerprint (%s)", fp ? "not a fingerprint object" : je.text);
			json_decref(fp);
			return -EPROTO;
		}
		*fingerprint = fp;
		return 0;
	}
}

int proto_host_run(struct proto_conn *c, const char *what, const json_t *options, int stall_ms, int total_ms,
		   json_t **doc)
{
	uint64_t end = clock_ns() + (uint64_t)total_ms * 1000000;
	char *opts = json_dumps(options, JSON_COMPACT), *line = NULL;
	int r;

	if (!opts)
		return -ENOMEM;
	if (strpbrk(what, " \n") || !*what) {
		fail(c, "'%s' is not a suite or test name", what);
		free(opts);
		return -EINVAL;
	}
	r = proto_send(c, "RUN %s %s", what, opts);
	free(opts);
	if (r < 0) {
		fail(c, "sending RUN: %s", strerror(-r));
		return r;
	}
	for (;;) {
		uint64_t now = clock_ns();
		int wait = (int)(now < end ? (end - now) / 1000000 : 0);
		int64_t len;
		char *text, err[512];

		if (wait > stall_ms)
			wait = stall_ms;
		free(line);
		line = NULL;
		r = wait > 0 ? proto_recv_line(c, wait, &line) : -ETIMEDOUT;
		if (r < 0) {
			io_fail(c, r, now >= end ? "running (over the run's time limit)" : "running");
			return r;
		}
		if (str_has_prefix(line, "PROGRESS "))
			continue;
		if (str_has_prefix(line, "ERROR ")) {
			fail(c, "the guest could not run %s: %s", what, line + 6);
			free(line);
			return -EIO;
		}
		if (!str_has_prefix(line, "RESULT ") || parse_i64(line + 7, 2, PROTO_MAX_RESULT, &len) < 0) {
			fail(c, "unexpected line from the guest while running: '%.100s'", line);
			free(line);
			return -EPROTO;
		}
		free(line);
		r = proto_recv_bytes(c, (size_t)len + 1, stall_ms, &text);
		if (r < 0) {
			io_fail(c, r, "receiving the result");
			return r;
		}
		if (text[len] != '\n') {
			fail(c, "the result is not followed by a newline: its length is wrong");
			free(text);
			return -EPROTO;
		}
		text[len] = '\0';
		r = doc_load_string(text, "the guest's result", doc, err, sizeof(err));
		free(text);
		if (r < 0) {
			fail(c, "%s", err);
			return -EPROTO;
		}
		return 0;
	}
}

int proto_host_bye(struct proto_conn *c, int timeout_ms)
{
	char *line = NULL;
	int r = proto_send(c, "BYE");

	if (r < 0) {
		fail(c, "sending BYE: %s", strerror(-r));
		return r;
	}
	for (;;) {
		r = proto_recv_line(c, timeout_ms, &line);
		if (r < 0) {
			io_fail(c, r, "waiting for BYE");
			return r;
		}
		r = strcmp(line, "BYE") ? 1 : 0;
		free(line);
		if (r == 0)
			return 0;
	}
}

int proto_options_argv(const json_t *options, char ***argv, int *argc, char *err, size_t errlen)
{
	const char *k;
	json_t *v;
	struct strv sv = { 0 };

	if (!json_is_object(options)) {
		snprintf(err, errlen, "the options are not a JSON object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)options, k, v) {
		char flag[160], val[64];

		if (!*k || strchr(k, ' ') || k[0] == '-') {
			snprintf(err, errlen, "option name '%s' is not valid", k);
			strv_clear(&sv);
			return -EINVAL;
		}
		snprintf(flag, sizeof(flag), "--%s", k);
		if (json_is_true(v)) {
			strv_push(&sv, flag);
			continue;
		}
		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v) && isfinite(json_real_value(v)))
			snprintf(val, sizeof(val), "%.17g", json_real_value(v));
		else {
			snprintf(err, errlen, "option '%s': a value must be a string, a number or true", k);
			strv_clear(&sv);
			return -EINVAL;
		}
		strv_push(&sv, flag);
		strv_push(&sv, val);
	}
	*argv = sv.v;
	*argc = (int)sv.n;
	return 0;
}
