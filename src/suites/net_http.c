/* The net suite's HTTP/1.1 load generator: N keep-alive connections over
 * T threads on the load engine (net_load.c). Two modes, as the peers
 * define them: as fast as responses come (wrk: requests/s = completed /
 * duration, latency from each request's send), or a constant total rate
 * (wrk2 -R: each request has an intended send time on the schedule and its
 * latency is measured from that time, so a stalled server shows in the
 * tail). Non-2xx responses, socket errors and timeouts are counted, never
 * dropped. Against `vmbench serve` the server's own count of answered
 * requests is read before and after and reported beside the client's.
 *
 * Here: the target, the request (the same bytes each time, built once) and
 * what a response is (src/net/http.c's parser over the bytes where they
 * lie; a non-2xx status counted; Connection: close replaces the
 * connection). */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "net_load.h"
#include "../net/http.h"
#include "../core/banned.h"

/* A thread's requests: all the same, built once. */
struct http_thread {
	const char *request;
	size_t reqlen;
	uint64_t non2xx;
};

static int http_request(void *pt, void *pc, struct iovec *iov)
{
	const struct http_thread *t = pt;

	iov[0] = (struct iovec){ .iov_base = (char *)t->request, .iov_len = t->reqlen };
	nethttp_resp_init(pc, false);
	return 1;
}

/* src/net/http.c's 1 (complete) as the engine's, and whether the server
 * closes the connection after it */
static int http_feed(void *pc, const char *buf, size_t len, size_t *used)
{
	int r = nethttp_resp_feed(pc, buf, len, used);

	return r == 1 && ((const struct nethttp_resp *)pc)->close_after ? NET_LOAD_DONE_CLOSE : r;
}

static int http_eof(void *pc)
{
	int r = nethttp_resp_eof(pc);

	return r < 0 ? r : ((const struct nethttp_resp *)pc)->close_after ? NET_LOAD_DONE_CLOSE : NET_LOAD_DONE;
}

static void http_counted(void *pt, void *pc, uint64_t latency_ns)
{
	const struct nethttp_resp *rp = pc;

	(void)latency_ns;
	if (rp->status < 200 || rp->status > 299)
		((struct http_thread *)pt)->non2xx++;
}

static const struct net_load_proto http_proto = {
	.conn_size = sizeof(struct nethttp_resp), /* the response on the way, parsed as it comes */
	.request = http_request,
	.feed = http_feed,
	.eof = http_eof,
	.counted = http_counted,
};

/* http://HOST[:PORT]/PATH into host:port and path. */
static int parse_url(const char *url, char *hostport, size_t hl, char *path, size_t pl)
{
	const char *h, *slash;

	if (strncmp(url, "http://", 7))
		return -EINVAL;
	h = url + 7;
	slash = strchr(h, '/');
	if (slash == h || (size_t)(slash ? slash - h : (ptrdiff_t)strlen(h)) >= hl)
		return -EINVAL;
	snprintf(hostport, hl, "%.*s", (int)(slash ? slash - h : (ptrdiff_t)strlen(h)), h);
	snprintf(path, pl, "%s", slash ? slash : "/");
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

/* Where the requests go: --net.url's host and path, or the run's own serve
 * (its session's HTTP port, and its count of answers so far in *before,
 * the control connection in *c). 0, or a negative errno after a message. */
static int http_target(struct vmb_ctx *ctx, const char *url, struct sockaddr_storage *addr, socklen_t *alen,
		       char *hostport, size_t hostlen, char *path, size_t pathlen, struct net_ctl **c, uint64_t *before)
{
	struct net_state *st = ctx->priv;
	char err[320];
	unsigned hport = 0;
	int r;

	if (url) {
		if (parse_url(url, hostport, hostlen, path, pathlen) < 0)
			return vmb_usage(ctx, "--net.url %s: expected http://HOST[:PORT]/PATH (no https)", url);
		if (netio_resolve(hostport, 80, addr, alen, err, sizeof(err)) < 0)
			return vmb_usage(ctx, "--net.url %s", err);
	} else {
		snprintf(hostport, hostlen, "%s", st->srvname);
		*addr = st->srv;
		*alen = st->srvlen;
		if (!strcmp(optset_str(ctx->opts, "page"), "dynamic"))
			snprintf(path, pathlen, "/dynamic");
		else
			snprintf(path, pathlen, "/static/%llu", (unsigned long long)optset_size(ctx->opts, "body-size"));
		/* serve answers HTTP to an authenticated session only, on a port of
		 * that session's own (src/net/serve.c) */
		*c = net_ctl_get(ctx, st);
		r = *c ? net_ctl_http_count(ctx, *c, before) : -ECONNREFUSED;
		if (r == 0)
			r = net_ctl_http_port(ctx, *c, &hport);
		if (r < 0)
			return r;
		if (addr->ss_family == AF_INET)
			((struct sockaddr_in *)addr)->sin_port = htons((uint16_t)hport);
		else
			((struct sockaddr_in6 *)addr)->sin6_port = htons((uint16_t)hport);
	}
	return 0;
}

int net_http_run(struct vmb_ctx *ctx, const struct vmb_test *test, struct vmb_rep *rep)
{
	struct net_state *st = ctx->priv;
	const char *url = optset_str(ctx->opts, "url");
	unsigned conns = ctx->sweep, nth = (unsigned)optset_int(ctx->opts, "threads");
	double rate = optset_double(ctx->opts, "http-rate");
	struct sockaddr_storage addr;
	socklen_t alen;
	char hostport[300], path[1024], request[1500];
	struct http_thread *hts = NULL;
	struct net_load l = { 0 };
	struct net_ctl *c = NULL;
	uint64_t before = 0, after = 0, non2xx = 0;
	int r, n;

	(void)test;
	net_load_fd_limit(conns);
	r = http_target(ctx, url, &addr, &alen, hostport, sizeof(hostport), path, sizeof(path), &c, &before);
	if (r < 0)
		goto out;
	n = snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, hostport);
	hts = calloc(nth, sizeof(*hts));
	if (!hts) {
		r = vmb_fail(ctx, -ENOMEM, "%u client threads", nth);
		goto out;
	}
	for (unsigned i = 0; i < nth; i++) {
		hts[i].request = request;
		hts[i].reqlen = (size_t)n;
	}
	l = (struct net_load){
		.proto = &http_proto,
		.addr = &addr,
		.alen = alen,
		.name = hostport,
		.conns = conns,
		.threads = nth,
		.rate = rate,
		.window_s = st->window_s,
		.interval_s = optset_double(ctx->opts, "interval"),
		.pts = hts,
		.pt_size = sizeof(*hts),
	};
	r = net_load_run(ctx, &l);
	if (r < 0)
		goto out;
	for (unsigned i = 0; i < l.threads; i++)
		non2xx += hts[i].non2xx;
	net_load_report_rate(rep, &l);
	net_load_report_loop(rep, &l);
	r = net_load_report_series(rep, &l);
	if (r < 0) {
		r = vmb_fail(ctx, r, "the series of %u client threads", l.threads);
		goto out;
	}
	net_load_report_counts(rep, &l);
	vmb_rep_value(rep, "errors_non2xx", VMB_UNIT_NONE, VMB_LOWER, (double)non2xx);
	net_load_report_errors(rep, &l);
	if (r == 0 && c) {
		r = net_ctl_http_count(ctx, c, &after);
		/* every response the server sent, counted in the window or not:
		 * equal to "responses" unless a connection failed mid-answer */
		vmb_rep_value(rep, "server_requests", VMB_UNIT_NONE, VMB_HIGHER, (double)(after - before));
	}
out:
	net_load_release(&l);
	free(hts);
	return r;
}
