/* vmbench serve: the other end of the net suite's tests (src/net/serve.c),
 * on loopback unless told otherwise, and then only with a token. The token
 * comes from $VMBENCH_NET_TOKEN, as the client's does, never from the
 * command line, which anyone on the machine can read (ps). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../net/io.h"
#include "../net/proto.h"
#include "../net/serve.h"
#include "../core/banned.h"

const struct vmb_opt serve_opts[] = {
	{ .name = "bind", .type = OPT_STRING, .def = "127.0.0.1", .metavar = "ADDR",
	  .help = "the address to listen on (IPv4, IPv6, [IPv6] or a name; the port is --port's); any other than "
		  "loopback requires a token in $VMBENCH_NET_TOKEN of 16 to 64 letters, digits, '.', '_', '-' (random: "
		  "e.g. $(openssl rand -hex 16)), and with a token HTTP is served only to a client that presented it: "
		  "a server on a network is never an open traffic reflector. A wrong token delays the next check of "
		  "its address's tokens, 0.1 s doubling to 5 s, and is logged with the address's count" },
	{ .name = "port", .type = OPT_INT, .min = 0, .max = 65535, .def = "5280", .metavar = "N",
	  .help = "the TCP port of the control protocol and the HTTP endpoint; 0 picks a free one (printed)" },
	{ .name = "token", .type = OPT_STRING, .metavar = "SECRET",
	  .help = "refused: ps shows a command line to every user of the machine; put the token in "
		  "$VMBENCH_NET_TOKEN instead" },
	{ .name = "once", .type = OPT_BOOL, .help = "leave after the first client's session (for scripts)" },
	{ .name = "stall-ms", .type = OPT_INT, .min = 0, .max = 900, .def = "0", .metavar = "MS",
	  .help = "pause the HTTP endpoint this long once a second: a known stall, to check that a "
		  "constant-rate client (run net.http --net.http-rate) shows it in its tail" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "print debugging details" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_serve(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_serve_desc = {
	.name = "serve",
	.fn = cmd_serve,
	.args = "[--bind ADDR] [--port N] [--once]",
	.summary = "the server end of the net suite: control protocol, data, HTTP pages",
	.description = "Answers `vmbench run net --net.server HOST[:PORT]`: a versioned control protocol (version 1) "
		       "negotiates each test and reports the server side's figures; data flows on connections of "
		       "its own. The same port serves HTTP/1.1: GET /static/N (N bytes, at most 1 MiB) and "
		       "GET /dynamic (20000 rounds of a xorshift mix per request); with a token "
		       "($VMBENCH_NET_TOKEN) only on a port announced to an authenticated session, to its address. "
		       "Prints 'listening on ADDR:PORT' ([ADDR]:PORT for IPv6) once ready. Every test is bounded "
		       "(10 min, 128 streams, 16 sessions and 4 per address, 4096 connections, 5 s to authenticate, "
		       "10 s per HTTP request, 1 h per session); a client's error ends that client's session, never "
		       "the server. A wrong token is logged with its address's count of failures, and that "
		       "address's next greeting waits 0.1 s, doubling with each failure to 5 s (other addresses do "
		       "not wait).",
	.opts = serve_opts,
	.max_args = 0,
};

/* The deadlines in ms, "AUTH,REQUEST,SESSION" from $VMBENCH_SERVE_DEADLINES_MS:
 * a hook for tests, so that a slow client is cut off in seconds. */
static int deadlines_from_env(const char *v, struct netsrv_conf *conf)
{
	unsigned *out[3] = { &conf->auth_ms, &conf->request_ms, &conf->session_ms };
	const char *p = v;

	for (unsigned i = 0; i < 3; i++) {
		char *end;
		unsigned long ms;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		ms = strtoul(p, &end, 10);
		if (errno || ms < 100 || ms > 86400000ul || *end != (i < 2 ? ',' : '\0'))
			return -EINVAL;
		*out[i] = (unsigned)ms;
		p = end + 1;
	}
	return 0;
}

static int cmd_serve(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct netsrv_conf conf;
	struct netsrv *srv = NULL;
	struct sockaddr_storage ss;
	char err[320];
	const char *bind_addr, *token, *dl;
	char name[80];
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	if (optset_get(&own, "token")->set) {
		ret = cmd_usage_error(self, "--token: a secret on the command line is one every user of this machine "
				      "can read (ps): set VMBENCH_NET_TOKEN=SECRET in serve's environment instead");
		goto out;
	}
	bind_addr = optset_str(&own, "bind");
	token = getenv("VMBENCH_NET_TOKEN");
	if (token && !*token)
		token = NULL;
	if (token && !netproto_token_valid(token, strlen(token))) {
		ret = cmd_usage_error(self, "$VMBENCH_NET_TOKEN: 1 to %d letters, digits, '.', '_' or '-'",
				      NETPROTO_MAX_TOKEN);
		goto out;
	}
	/* validated once, here: what passes is what netsrv_open binds */
	if (netio_bind_addr(bind_addr, &ss, err, sizeof(err)) < 0) {
		ret = cmd_usage_error(self, "--bind %s", err);
		goto out;
	}
	if (!netio_is_loopback(&ss) && !token) {
		ret = cmd_usage_error(self, "--bind %s is not a loopback address: set a token in $VMBENCH_NET_TOKEN too "
				      "(not on the command line, where ps shows it), so that only clients that know it "
				      "can make this machine send traffic", bind_addr);
		goto out;
	}
	if (!netio_is_loopback(&ss) && strlen(token) < NETSRV_TOKEN_MIN) {
		ret = cmd_usage_error(self, "--bind %s is not a loopback address, and $VMBENCH_NET_TOKEN has %zu "
				      "character%s: a server on a network takes a token of at least %d (96 bits when "
				      "random; a short one is guessed), e.g. VMBENCH_NET_TOKEN=$(openssl rand -hex 16)",
				      bind_addr, strlen(token), strlen(token) == 1 ? "" : "s", NETSRV_TOKEN_MIN);
		goto out;
	}
	memset(&conf, 0, sizeof(conf));
	dl = getenv("VMBENCH_SERVE_DEADLINES_MS");
	if (dl && deadlines_from_env(dl, &conf) < 0) {
		ret = cmd_usage_error(self, "$VMBENCH_SERVE_DEADLINES_MS '%s': expected AUTH,REQUEST,SESSION in ms, "
				      "each 100 to 86400000", dl);
		goto out;
	}
	(void)signal(SIGPIPE, SIG_IGN);
	if (cmd_install_stop_signals(NULL) < 0) {
		log_errno(-errno, "installing signal handlers");
		ret = EXIT_FAILED;
		goto out;
	}
	conf.addr = &ss;
	conf.port = (unsigned)optset_int(&own, "port");
	conf.token = token;
	conf.once = optset_bool(&own, "once");
	conf.stall_ms = (unsigned)optset_int(&own, "stall-ms");
	r = netsrv_open(&conf, &srv);
	if (r < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	netsrv_name(srv, name, sizeof(name));
	printf("listening on %s\n", name);
	if (cmd_stdout_check(true) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	r = netsrv_run(srv);
	ret = r < 0 ? EXIT_FAILED : EXIT_OK;
out:
	netsrv_free(srv);
	cmd_release(&own, NULL, &pos);
	return ret;
}
