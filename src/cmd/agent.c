/* vmbench agent: the guest side of the lab. It says HELLO with this
 * machine's fingerprint, runs the suites the host asks for (as `vmbench run`
 * in a child process: the same runner and suites as on a host), streams
 * PROGRESS heartbeats, returns each result document, and leaves on BYE. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../lab/proto.h"
#include "../probe/probe.h"
#include "../core/banned.h"

const struct vmb_opt agent_opts[] = {
	{ .name = "port", .type = OPT_STRING, .def = "-", .metavar = "PATH",
	  .help = "the channel to the host: a serial or virtio-serial device, or - for stdin/stdout" },
	{ .name = "idle", .type = OPT_DOUBLE, .min = 1, .max = 604800, .def = "3600", .metavar = "SECONDS",
	  .help = "leave when the host has said nothing for this long" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_agent(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_agent_desc = {
	.name = "agent",
	.fn = cmd_agent,
	.args = "[--port PATH]",
	.summary = "the guest side of the lab: run suites on a host's request over a serial port",
	.description = "Speaks vmbench's agent protocol (version 1) on PATH or stdin/stdout: HELLO with this "
		       "machine's fingerprint, then RUN <suite> <options JSON> answered by PROGRESS heartbeats "
		       "and RESULT <length> with the result document (or ERROR <message>), until BYE.",
	.opts = agent_opts,
	.max_args = 0,
};

/* A serial line must pass bytes untouched: no echo, no CR/LF translation. */
static void make_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		(void)tcsetattr(fd, TCSANOW, &t);
	}
}

/* Run `vmbench run WHAT OPTIONS --no-store -q --json -` and send its result. */
static int run_one(struct proto_conn *c, const char *what, const char *opts_json)
{
	char err[256], *out = NULL, errtail[2048] = "";
	size_t outlen = 0, outcap = 0;
	json_t *opts = json_loads(opts_json, 0, NULL);
	char **extra = NULL, **argv = NULL;
	int nextra = 0, pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, status = 0, r = 0, open_fds = 2;
	uint64_t t0 = clock_ns(), last = t0;
	pid_t pid;

	if (!opts || proto_options_argv(opts, &extra, &nextra, err, sizeof(err)) < 0) {
		json_decref(opts);
		return proto_send(c, "ERROR options for %s: %s", what, opts ? err : "not valid JSON");
	}
	json_decref(opts);
	argv = calloc((size_t)nextra + 10, sizeof(*argv));
	if (!argv || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
		r = proto_send(c, "ERROR cannot start a run: %s", strerror(errno));
		goto out;
	}
	argv[0] = "vmbench";
	argv[1] = "run";
	argv[2] = (char *)what;
	for (int i = 0; i < nextra; i++)
		argv[3 + i] = extra[i];
	argv[3 + nextra] = "--no-store";
	argv[4 + nextra] = "-q";
	argv[5 + nextra] = "--json";
	argv[6 + nextra] = "-";
	pid = fork();
	if (pid < 0) {
		r = proto_send(c, "ERROR fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		(void)dup2(pout[1], STDOUT_FILENO);
		(void)dup2(perr[1], STDERR_FILENO);
		(void)dup2(open("/dev/null", O_RDONLY), STDIN_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pout[1]);
	close(perr[1]);
	pout[1] = perr[1] = -1;
	while (open_fds > 0) {
		/* poll ignores negative descriptors: a closed pipe drops out */
		struct pollfd p[2] = { { .fd = pout[0], .events = POLLIN }, { .fd = perr[0], .events = POLLIN } };
		uint64_t now;

		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		now = clock_ns();
		if (now - last >= 1000000000ull) {
			/* a heartbeat: the host's stall timer starts again */
			(void)proto_send(c, "PROGRESS %s %.0f", what, (double)(now - t0) / 1e9);
			last = now;
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t n;

			if (outcap - outlen < 65536) {
				char *nb = realloc(out, outcap + 262144);

				if (!nb)
					break;
				out = nb;
				outcap += 262144;
			}
			n = read(pout[0], out + outlen, outcap - outlen - 1);
			if (n > 0)
				outlen += (size_t)n;
			else if (n == 0)
				open_fds--, close(pout[0]), pout[0] = -1;
		}
		if (p[1].revents & (POLLIN | POLLHUP)) {
			char buf[512];
			ssize_t n = read(perr[0], buf, sizeof(buf) - 1);

			if (n > 0) {
				/* keep the tail of stderr: a failure's message is near its end */
				size_t have = strlen(errtail), add = (size_t)n;

				if (have + add >= sizeof(errtail)) {
					size_t drop = have + add - sizeof(errtail) + 1;

					drop = drop > have ? have : drop;
					memmove(errtail, errtail + drop, have - drop + 1);
					have -= drop;
				}
				if (add >= sizeof(errtail) - have)
					add = sizeof(errtail) - have - 1;
				memcpy(errtail + have, buf + n - add, add);
				errtail[have + add] = '\0';
			} else if (n == 0) {
				open_fds--, close(perr[0]), perr[0] = -1;
			}
		}
	}
	(void)waitpid(pid, &status, 0);
	if (out && outlen && WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1)) {
		out[outlen] = '\0';
		while (outlen && out[outlen - 1] == '\n')
			out[--outlen] = '\0';
		r = proto_send(c, "RESULT %zu", outlen);
		if (r == 0)
			r = proto_send(c, "%s", out);
	} else {
		/* the run's own message: its last "error:" line */
		char *msg = NULL, *nl;

		for (char *p = errtail; (p = strstr(p, "error: ")); p++)
			msg = p + 7;
		if (msg && (nl = strchr(msg, '\n')))
			*nl = '\0';
		r = proto_send(c, "ERROR %s", msg ? msg : "the run produced no result");
	}
out:
	for (int i = 0; i < 2; i++) {
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	free(out);
	free(argv);
	for (int i = 0; i < nextra; i++)
		free(extra[i]);
	free(extra);
	return r;
}

static int cmd_agent(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos;
	struct proto_conn c;
	const char *port;
	json_t *fp = NULL;
	char *fps = NULL;
	int fd = -1, ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	log_set_level(LOG_ERROR);
	(void)signal(SIGPIPE, SIG_IGN);
	port = optset_str(&own, "port");
	if (strcmp(port, "-")) {
		fd = open(port, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			log_errno(-errno, "opening the agent port %s", port);
			ret = EXIT_FAILED;
			goto out;
		}
		make_raw(fd);
		proto_init(&c, fd, fd);
	} else {
		proto_init(&c, STDIN_FILENO, STDOUT_FILENO);
	}
	fp = probe_fingerprint(&(struct probe_src){ .root = "/" });
	fps = fp ? json_dumps(fp, JSON_COMPACT) : NULL;
	if (!fps || proto_send(&c, "HELLO %d %s", PROTO_VERSION, fps) < 0) {
		ret = EXIT_FAILED;
		goto release;
	}
	ret = EXIT_FAILED;
	for (;;) {
		char *line = NULL, *what, *opts;

		r = proto_recv_line(&c, (int)(optset_double(&own, "idle") * 1000), &line);
		if (r < 0)
			break; /* host gone or silent: nothing more to do */
		if (!strcmp(line, "BYE")) {
			free(line);
			ret = proto_send(&c, "BYE") == 0 ? EXIT_OK : EXIT_FAILED;
			break;
		}
		if (!str_has_prefix(line, "RUN ") || !(opts = strchr(line + 4, ' '))) {
			r = proto_send(&c, "ERROR expected 'RUN <suite> <options JSON>' or 'BYE', not '%.80s'", line);
			free(line);
			if (r < 0)
				break;
			continue;
		}
		*opts++ = '\0';
		what = line + 4;
		r = run_one(&c, what, opts);
		free(line);
		if (r < 0)
			break;
	}
release:
	proto_release(&c);
out:
	if (fd >= 0)
		close(fd);
	free(fps);
	json_decref(fp);
	cmd_release(&own, NULL, &pos);
	return ret;
}
