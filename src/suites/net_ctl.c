/* The net suite's control session with the server (`vmbench serve`, the
 * protocol of src/net/proto.h): connect and greet, ask for a test's data
 * port, end it and take the server's result, checked against the client's
 * own account of the test; the HTTP port and counters for net_http.c. The
 * tests that use it are in net.c. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "../core/clock.h"
#include "../net/io.h"
#include "../net/proto.h"
#include "../net/verify.h"
#include "../core/banned.h"

static int ctl_expect(struct vmb_ctx *ctx, struct net_ctl *c, enum netproto_verb want, struct netmsg *m,
		      const char *what)
{
	char err[256];
	int r = netio_recv_msg(c->fd, &c->lines, m, NET_CTL_TIMEOUT_MS, err, sizeof(err));

	if (r == -EINVAL || r == -ERANGE)
		return vmb_fail(ctx, -EPROTO, "%s: a bad line from the server (%s)", what, err);
	if (r < 0)
		return vmb_fail(ctx, r, "%s", what);
	if (m->verb == NETPROTO_ERR)
		return vmb_fail(ctx, -EPROTO, "%s: the server said: %s", what, m->text);
	if (m->verb != want)
		return vmb_fail(ctx, -EPROTO, "%s: expected %s from the server, got %s", what, netproto_verb_name(want),
				netproto_verb_name(m->verb));
	return 0;
}

int net_ctl_open(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c)
{
	struct netmsg m;
	int r;

	memset(c, 0, sizeof(*c));
	c->fd = netio_connect(&st->srv, st->srvlen, NET_CTL_TIMEOUT_MS);
	if (c->fd < 0)
		return vmb_fail(ctx, c->fd, "connecting to the server %s", st->srvname);
	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_HELLO;
	m.version = NETPROTO_VERSION;
	if (st->token)
		snprintf(m.token, sizeof(m.token), "%s", st->token);
	r = netio_send_msg(c->fd, &m, NET_CTL_TIMEOUT_MS);
	if (r < 0) {
		r = vmb_fail(ctx, r, "greeting the server %s", st->srvname);
		goto fail;
	}
	r = ctl_expect(ctx, c, NETPROTO_OK, &m, "greeting the server");
	if (r < 0)
		goto fail;
	return 0;
fail:
	close(c->fd);
	c->fd = -1;
	return r;
}

void net_ctl_close(struct net_ctl *c)
{
	struct netmsg m;

	if (c->fd < 0)
		return;
	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_BYE;
	(void)netio_send_msg(c->fd, &m, 500);
	close(c->fd);
	c->fd = -1;
}

struct net_ctl *net_ctl_get(struct vmb_ctx *ctx, struct net_state *st)
{
	if (st->ctl && st->ctl->fd >= 0)
		return st->ctl;
	if (!st->ctl) {
		st->ctl = calloc(1, sizeof(*st->ctl));
		if (!st->ctl) {
			(void)vmb_fail(ctx, -ENOMEM, "control session");
			return NULL;
		}
	}
	if (net_ctl_open(ctx, st, st->ctl) < 0)
		return NULL;
	return st->ctl;
}

int net_ctl_http_count(struct vmb_ctx *ctx, struct net_ctl *c, uint64_t *out)
{
	struct netmsg m;
	int r;

	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_STATS;
	r = netio_send_msg(c->fd, &m, NET_CTL_TIMEOUT_MS);
	if (r < 0)
		return vmb_fail(ctx, r, "asking the server for its counters");
	r = ctl_expect(ctx, c, NETPROTO_STATS, &m, "the server's counters");
	if (r < 0)
		return r;
	*out = m.v[NETKEY_HTTP];
	return 0;
}

int net_ctl_http_port(struct vmb_ctx *ctx, struct net_ctl *c, unsigned *port)
{
	struct netmsg m;
	int r;

	if (c->http_port) {
		*port = c->http_port;
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_HTTP;
	r = netio_send_msg(c->fd, &m, NET_CTL_TIMEOUT_MS);
	if (r < 0)
		return vmb_fail(ctx, r, "asking the server for its HTTP port");
	r = ctl_expect(ctx, c, NETPROTO_PORT, &m, "the server's HTTP port");
	if (r < 0)
		return r;
	c->http_port = m.port;
	*port = m.port;
	return 0;
}

/* TEST ... -> PORT: the data address in *data. */
int net_ctl_test(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c, const struct netmsg *req,
		 struct sockaddr_storage *data)
{
	struct netmsg m;
	int r;

	c->test_start_ns = clock_ns();
	r = netio_send_msg(c->fd, req, NET_CTL_TIMEOUT_MS);
	if (r < 0)
		return vmb_fail(ctx, r, "asking the server for a test");
	r = ctl_expect(ctx, c, NETPROTO_PORT, &m, "starting the test");
	if (r < 0)
		return r;
	*data = st->srv;
	if (data->ss_family == AF_INET)
		((struct sockaddr_in *)data)->sin_port = htons((uint16_t)m.port);
	else
		((struct sockaddr_in6 *)data)->sin6_port = htons((uint16_t)m.port);
	return 0;
}

/* END, then close the data sockets (the server counts what came before
 * END and drains the rest until they close), then RESULT, which must be
 * consistent with the client's own account of the test (tally): a figure
 * the server could not have measured fails the case and names the server. */
int net_ctl_end(struct vmb_ctx *ctx, const struct net_state *st, struct net_ctl *c, struct netmsg *res, int *data,
		unsigned ndata, struct netverify_tally *tally)
{
	char why[200];
	struct netmsg m;
	int r;

	memset(&m, 0, sizeof(m));
	m.verb = NETPROTO_END;
	r = netio_send_msg(c->fd, &m, NET_CTL_TIMEOUT_MS);
	for (unsigned i = 0; i < ndata; i++)
		if (data[i] >= 0) {
			close(data[i]);
			data[i] = -1;
		}
	if (r < 0)
		return vmb_fail(ctx, r, "ending the test");
	r = ctl_expect(ctx, c, NETPROTO_RESULT, res, "the server's result");
	if (r < 0)
		return r;
	tally->wall_ns = clock_ns() - c->test_start_ns;
	if (netverify_result(tally, res, why, sizeof(why)) < 0)
		return vmb_fail(ctx, -EPROTO, "the server %s reported what it cannot have measured: %s", st->srvname, why);
	return 0;
}
