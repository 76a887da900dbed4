/* vmbench agent: the guest side of the lab. It says HELLO with this
 * machine's fingerprint, runs the suites the host asks for (as `vmbench run`
 * in a child process: the same runner and suites as on a host), streams
 * PROGRESS heartbeats, returns each result document, and leaves on BYE.
 * docs/agent-protocol.md is the protocol's specification. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/bgload.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/macro.h"
#include "../guest/bond.h"
#include "../guest/channels.h"
#include "../guest/fs.h"
#include "../guest/proto_guest.h"
#include "../probe/probe.h"
#include "../core/banned.h"

const struct vmb_opt agent_opts[] = {
	{ .name = "port", .type = OPT_STRING, .def = "-", .metavar = "PATH",
	  .help = "the channel to the host: a serial or virtio-serial device, a Unix socket, or - for stdin/stdout" },
	{ .name = "idle", .type = OPT_DOUBLE, .min = 1, .max = 604800, .def = "3600", .metavar = "SECONDS",
	  .help = "leave when the host has said nothing for this long" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

/* vmbench.bond=MODE,N on the kernel command line (the lab's nics key): the
 * guest's N NICs bonded, the link's address on the bond, before the
 * fingerprint that shows them (init leaves the NICs to this). A failure
 * is said on the console; the host's check of the fingerprint fails the
 * boot. */
static void agent_bond(void)
{
	char *cmdline = NULL, why[256];
	struct lab_bond b;

	if (read_file("/proc/cmdline", &cmdline) == 0 && lab_cmdline_bond(cmdline, strlen(cmdline), &b) == 0 &&
	    lab_bond_setup(&b, 10000, why, sizeof(why)) < 0)
		log_error("agent: vmbench.bond=%s,%u: %s", b.mode, b.n, why);
	free(cmdline);
}

static int cmd_agent(const struct vmb_cmd *self, int argc, char **argv);

const struct vmb_cmd cmd_agent_desc = {
	.name = "agent",
	.fn = cmd_agent,
	.args = "[--port PATH]",
	.summary = "the guest side of the lab: run suites on a host's request over a serial port",
	.description = "Speaks vmbench's agent protocol (version " STRINGIFY(PROTO_VERSION) ") on PATH or stdin/stdout: HELLO with this "
		       "machine's fingerprint, maybe PREPARE <JSON> answered by PREPARED <JSON> (a filesystem made "
		       "and mounted on the disk under test, or a host's shared folder mounted), then RUN <suite> <options JSON> answered by PROGRESS "
		       "heartbeats and RESULT <length> with the result document (or ERROR <message>), TOKEN "
		       "<secret> (the net token of later runs, answered OK), SERVE <address> (a vmbench serve "
		       "there, answered SERVING <address:port>) and LOAD <percent> (a background load of run --load's "
		       "spinners in the agent, 0 to stop it, answered LOADED with what the stopped one got), until BYE "
		       "(or REBOOT: the same BYE, then exit status " STRINGIFY(PROTO_EXIT_REBOOT) ", on which the lab's "
		       "images reboot the guest).",
	.opts = agent_opts,
	.max_args = 0,
};

/* How long a run stopped with SIGTERM may take to clean up (its scratch
 * files) before it is killed. */
#define AGENT_STOP_GRACE_MS 10000

/* Where the run writes its progress lines (--progress-fd), and the most
 * of one line the agent keeps. */
#define AGENT_PROGRESS_FD 3
#define AGENT_PROGRESS_MAX 512

/* A signal that ends the agent while a run goes on: the run is stopped
 * first, then the agent dies of the same signal. */
static volatile sig_atomic_t agent_signal;

static void on_signal(int sig)
{
	agent_signal = sig;
}

static const int agent_signals[] = { SIGTERM, SIGINT, SIGHUP };

static void catch_signals(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(agent_signals); i++)
		(void)sigaction(agent_signals[i], &sa, NULL);
}

/* A serial line must pass bytes untouched: no echo, no CR/LF translation,
 * no waiting for a modem's carrier. */
static void make_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		(void)tcsetattr(fd, TCSANOW, &t);
	}
}

/* What else a path can be, for the message that refuses it. */
static const struct {
	mode_t type;
	const char *what;
} not_ports[] = {
	{ S_IFREG, "a regular file" },
	{ S_IFDIR, "a directory" },
	{ S_IFLNK, "a symbolic link (give the port it points to)" },
	{ S_IFBLK, "a block device" },
	{ S_IFIFO, "a FIFO (it carries one direction only)" },
};

/* The port: a character device (serial, virtio-serial) or a Unix socket,
 * nothing else. The path is opened once with O_PATH, without following a
 * symbolic link, and its type read from that descriptor; the device or
 * socket is then reached through the same descriptor (/proc/self/fd), so
 * that no rename in between can make the agent write into a regular file.
 * 0, or an exit code after a message. */
static int open_port(const char *path, int *out)
{
	char self[64];
	struct stat st;
	int pfd, fd = -1;

	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0) {
		log_errno(-errno, "opening the agent port %s", path);
		return EXIT_USAGE;
	}
	if (fstat(pfd, &st) < 0) {
		log_errno(-errno, "fstat of the agent port %s", path);
		close(pfd);
		return EXIT_FAILED;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	if (S_ISCHR(st.st_mode)) {
		/* O_NONBLOCK: a serial line without carrier would block the open */
		fd = open(self, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			make_raw(fd);
			(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		}
	} else if (S_ISSOCK(st.st_mode)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", self);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			int e = errno;

			close(fd);
			fd = -1;
			errno = e;
		}
	} else {
		const char *what = "not a port";

		for (size_t i = 0; i < ARRAY_SIZE(not_ports); i++)
			if ((st.st_mode & S_IFMT) == not_ports[i].type)
				what = not_ports[i].what;
		log_error("the agent port %s is %s: give a character device (a serial or virtio-serial port such as "
			  "/dev/hvc0), a Unix socket, or - for stdin/stdout", path, what);
		close(pfd);
		return EXIT_USAGE;
	}
	if (fd < 0) {
		log_errno(-errno, "opening the agent port %s", path);
		close(pfd);
		return EXIT_FAILED;
	}
	close(pfd);
	*out = fd;
	return 0;
}

/* The child: `vmbench run`, in a process group of its own (the agent stops
 * the whole group), stopped with SIGTERM when the agent dies, even of
 * SIGKILL: SIGTERM lets the run remove its scratch files. Never returns. */
static void exec_run(char **argv, int out, int err, int prog, pid_t agent)
{
	int null = open("/dev/null", O_RDONLY);

	(void)setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != agent)
		_exit(127); /* the agent died before the signal was armed */
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
		_exit(127);
	/* the run's progress lines on AGENT_PROGRESS_FD (dup2 onto itself would keep close-on-exec) */
	if (prog == AGENT_PROGRESS_FD ? fcntl(prog, F_SETFD, 0) < 0 : dup2(prog, AGENT_PROGRESS_FD) < 0)
		_exit(127);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* Stop the run's process group: SIGTERM, AGENT_STOP_GRACE_MS to finish its
 * cleanup, then SIGKILL. Reaps the child. */
static void stop_run(pid_t pid, int *status)
{
	uint64_t end = clock_ns() + (uint64_t)AGENT_STOP_GRACE_MS * 1000000;

	(void)kill(-pid, SIGTERM);
	while (waitpid(pid, status, WNOHANG) == 0) {
		if (clock_ns() >= end) {
			(void)kill(-pid, SIGKILL);
			(void)waitpid(pid, status, 0);
			break;
		}
		/* nothing to poll on but the clock: a short nap, bounded above */
		(void)poll(NULL, 0, 20);
	}
	/* no kill of the group after the reaping: its number could be
	 * another's by then (a run starts no processes of its own) */
}

/* Keep the tail of the run's stderr: a failure's message is near its end. */
static void keep_tail(char *tail, size_t cap, const char *buf, size_t n)
{
	size_t have = strlen(tail), add = n;

	if (have + add >= cap) {
		size_t drop = have + add - cap + 1;

		drop = drop > have ? have : drop;
		memmove(tail, tail + drop, have - drop + 1);
		have -= drop;
	}
	if (add >= cap - have)
		add = cap - have - 1;
	memcpy(tail + have, buf + n - add, add);
	tail[have + add] = '\0';
}

/* An ERROR line: the message escaped, so that the host reads one line of
 * text whatever the run printed. */
static int send_error(struct proto_conn *c, const char *prefix, const char *msg)
{
	char q[600];

	proto_quote(q, sizeof(q), msg, 400);
	return proto_send(c, "ERROR %s%s", prefix, q);
}

/* The run's outcome to the host: its document as RESULT when it exited 0
 * or 1 with one, else ERROR with the run's own last "error:" line. */
static int send_outcome(struct proto_conn *c, char *out, size_t outlen, bool stopped, int status, char *errtail)
{
	char *msg = NULL, *nl;
	int r;

	if (!stopped && out && outlen && WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1)) {
		out[outlen] = '\0';
		while (outlen && out[outlen - 1] == '\n')
			out[--outlen] = '\0';
		if (outlen > PROTO_MAX_RESULT || outlen < 2 || strlen(out) != outlen) {
			char why[160];

			snprintf(why, sizeof(why), "the run's result is %zu bytes%s, not a document of 2 to %u bytes",
				 outlen, strlen(out) != outlen ? " with a NUL byte" : "", PROTO_MAX_RESULT);
			return send_error(c, "", why);
		}
		r = proto_send(c, "RESULT %zu", outlen);
		return r < 0 ? r : proto_send(c, "%s", out);
	}
	/* the run's own message: its last "error:" line */
	for (char *p = errtail; (p = strstr(p, "error: ")); p++)
		msg = p + 7;
	if (msg && (nl = strchr(msg, '\n')))
		*nl = '\0';
	if (!stopped && !msg && WIFSIGNALED(status)) {
		char why[200];

		/* a run the kernel killed says so, not "no result": a guest of too
		 * little memory (its out-of-memory killer sends SIGKILL) */
		snprintf(why, sizeof(why), "the run was killed by signal %d (%s)%s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGKILL ? ": in a guest, most often its out-of-memory killer (give it more "
						       "memory: the mem key)" : "");
		return send_error(c, "", why);
	}
	return send_error(c, "", stopped ? "the run was stopped" : msg && *msg ? msg : "the run produced no result");
}

/* The run's progress lines as they come: the last whole one is kept, with
 * the time it came; a line too long to keep is dropped to its newline. */
struct run_progress_in {
	char buf[AGENT_PROGRESS_MAX], last[AGENT_PROGRESS_MAX];
	size_t len;
	bool skipping;
	bool fresh;      /* the last line names another case than the one before: said at once */
	uint64_t t_last; /* 0: no line yet */
};

/* Read what the pipe has: 0, or -1 at its end. */
static int progress_read(struct run_progress_in *p, int fd, uint64_t now)
{
	ssize_t got = read(fd, p->buf + p->len, sizeof(p->buf) - p->len);
	char *nl;

	if (got <= 0)
		return got == 0 || (errno != EINTR && errno != EAGAIN) ? -1 : 0;
	p->len += (size_t)got;
	while ((nl = memchr(p->buf, '\n', p->len))) {
		size_t l = (size_t)(nl - p->buf);

		if (!p->skipping) {
			/* "<case>/<cases> ...": the host learns a new case's start at once (its
			 * share of QEMU's CPU is the case's from then on), not up to 1 s late */
			size_t k = strcspn(p->buf, " \n");

			if (k > l || strncmp(p->last, p->buf, k) || p->last[k] != ' ')
				p->fresh = true;
			memcpy(p->last, p->buf, l);
			p->last[l] = '\0';
			p->t_last = now;
		}
		p->skipping = false;
		memmove(p->buf, nl + 1, p->len - l - 1);
		p->len -= l + 1;
	}
	if (p->len == sizeof(p->buf)) {
		p->skipping = true;
		p->len = 0;
	}
	return 0;
}

/* A heartbeat: the time since the run began, and its progress when it said any. */
static int send_progress(struct proto_conn *c, const char *what, const struct run_progress_in *p, uint64_t t0,
			 uint64_t now)
{
	char err[160], *line = proto_progress_line(what, (double)(now - t0) / NSEC_PER_SEC,
						   p->t_last ? p->last : NULL,
						   (double)(now - p->t_last) / NSEC_PER_SEC, err, sizeof(err));
	int r;

	if (!line)
		return -ENOMEM;
	r = proto_send(c, "%s", line);
	free(line);
	return r;
}

/* Run `vmbench run --progress-fd=3 OPTIONS --no-store -q --json=- -- WHAT` and send its
 * result. A negative errno when the channel failed, else 0. */
static int run_one(struct proto_conn *c, const struct proto_run *req)
{
	char *out = NULL, errtail[2048] = "";
	size_t outlen = 0, outcap = 0;
	struct strv argv = { 0 };
	int pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, pprog[2] = { -1, -1 }, status = 0, r = 0, open_fds = 2;
	struct run_progress_in *prog = calloc(1, sizeof(*prog));
	uint64_t t0 = clock_ns(), last = t0;
	bool stopped = false;
	pid_t pid, agent = getpid();

	if (!prog || proto_run_argv(req, "--progress-fd=" STRINGIFY(AGENT_PROGRESS_FD), &argv) < 0) {
		r = send_error(c, "cannot start a run: ", strerror(ENOMEM));
		goto out;
	}
	if (pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0 || pipe2(pprog, O_CLOEXEC) < 0) {
		r = send_error(c, "cannot start a run: ", strerror(errno));
		goto out;
	}
	catch_signals(true);
	pid = fork();
	if (pid < 0) {
		catch_signals(false);
		r = send_error(c, "fork: ", strerror(errno));
		goto out;
	}
	if (pid == 0)
		exec_run(argv.v, pout[1], perr[1], pprog[1], agent);
	(void)setpgid(pid, pid); /* also here: kill(-pid) must not find no group */
	close(pout[1]);
	close(perr[1]);
	close(pprog[1]);
	pout[1] = perr[1] = pprog[1] = -1;
	while (open_fds > 0) {
		/* poll ignores negative descriptors: a closed pipe drops out */
		struct pollfd p[3] = { { .fd = pout[0], .events = POLLIN }, { .fd = perr[0], .events = POLLIN },
				       { .fd = pprog[0], .events = POLLIN } };
		uint64_t now;

		if (agent_signal || poll(p, 3, prog->fresh ? 100 : 1000) < 0) {
			if (agent_signal || errno != EINTR)
				break;
			continue;
		}
		now = clock_ns();
		if ((p[2].revents & (POLLIN | POLLHUP)) && progress_read(prog, pprog[0], now) < 0) {
			close(pprog[0]);
			pprog[0] = -1;
		}
		if (now - last >= 1000000000ull || (prog->fresh && now - last >= 100000000ull)) {
			/* a heartbeat: the host's stall timer starts again (a new case's
			 * at most ten a second, however short the cases) */
			r = send_progress(c, req->what, prog, t0, now);
			if (r < 0)
				break; /* the host is gone: the run is for no one */
			last = now;
			prog->fresh = false;
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			ssize_t got;

			if (outcap - outlen < 65536) {
				char *nb = realloc(out, outcap + 262144);

				if (!nb)
					break;
				out = nb;
				outcap += 262144;
			}
			got = read(pout[0], out + outlen, outcap - outlen - 1);
			if (got > 0)
				outlen += (size_t)got;
			else if (got == 0)
				open_fds--, close(pout[0]), pout[0] = -1;
		}
		if (p[1].revents & (POLLIN | POLLHUP)) {
			char buf[512];
			ssize_t got = read(perr[0], buf, sizeof(buf) - 1);

			if (got > 0)
				keep_tail(errtail, sizeof(errtail), buf, (size_t)got);
			else if (got == 0)
				open_fds--, close(perr[0]), perr[0] = -1;
		}
	}
	if (open_fds > 0) {
		stop_run(pid, &status);
		stopped = true;
	} else {
		(void)waitpid(pid, &status, 0);
	}
	catch_signals(false);
	if (agent_signal) {
		/* die of the signal that was meant for the agent, the run stopped */
		(void)raise(agent_signal);
	}
	if (r < 0)
		goto out;
	r = send_outcome(c, out, outlen, stopped, status, errtail);
out:
	for (int i = 0; i < 2; i++) {
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
		if (pprog[i] >= 0)
			close(pprog[i]);
	}
	free(prog);
	free(out);
	strv_clear(&argv);
	return r;
}

/* The vmbench serve the host asked for (SERVE), or 0. */
static pid_t serve_pid;

static void serve_stop(void)
{
	int status;

	if (serve_pid > 0)
		stop_run(serve_pid, &status);
	serve_pid = 0;
}

/* How long serve may take to say where it listens. */
#define AGENT_SERVE_START_MS 10000

/* SERVE ADDR: `vmbench serve --bind ADDR` (the token, when the host gave
 * one, in its environment), until BYE or the next SERVE; answered with
 * SERVING and the address:port serve printed, or ERROR. */
static int serve_start(struct proto_conn *c, const char *addr)
{
	char *argv[] = { "vmbench", "serve", "--bind", (char *)addr, NULL };
	char buf[256] = "", *nl;
	size_t have = 0;
	int pout[2], null, r;
	uint64_t end = clock_ns() + (uint64_t)AGENT_SERVE_START_MS * 1000000;
	pid_t agent = getpid();

	serve_stop();
	if (pipe2(pout, O_CLOEXEC) < 0)
		return send_error(c, "cannot start serve: ", strerror(errno));
	serve_pid = fork();
	if (serve_pid < 0) {
		serve_pid = 0;
		close(pout[0]);
		close(pout[1]);
		return send_error(c, "fork: ", strerror(errno));
	}
	if (serve_pid == 0) {
		null = open("/dev/null", O_RDWR);
		(void)setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != agent || null < 0 ||
		    dup2(null, STDIN_FILENO) < 0 || dup2(pout[1], STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	(void)setpgid(serve_pid, serve_pid);
	close(pout[1]);
	/* its first line: "listening on ADDR:PORT" */
	while (!strchr(buf, '\n') && have < sizeof(buf) - 1) {
		struct pollfd p = { .fd = pout[0], .events = POLLIN };
		uint64_t now = clock_ns();
		ssize_t got;

		if (now >= end || poll(&p, 1, (int)((end - now) / 1000000) + 1) <= 0)
			break;
		got = read(pout[0], buf + have, sizeof(buf) - 1 - have);
		if (got <= 0)
			break;
		have += (size_t)got;
		buf[have] = '\0';
	}
	close(pout[0]);
	nl = strchr(buf, '\n');
	if (!nl || strncmp(buf, "listening on ", 13)) {
		serve_stop();
		return send_error(c, "vmbench serve did not start: ", *buf ? buf : "it printed nothing");
	}
	*nl = '\0';
	r = proto_send(c, "SERVING %s", buf + 13);
	return r;
}

/* The background load LOAD started (pct 0: none), stopped by the next
 * LOAD, by BYE and when the agent leaves. */
static struct bgload agent_load;

static void load_stop(unsigned *asked, double *got)
{
	*asked = agent_load.pct;
	*got = NAN;
	if (agent_load.pct)
		bgload_stop(&agent_load, got);
	agent_load.pct = 0;
}

/* LOAD PCT: the load there stopped, PCT% started (none for 0); answered
 * LOADED with what the stopped one was asked and got, or ERROR. */
static int load(struct proto_conn *c, const char *line)
{
	char err[256], got_s[24] = "-";
	unsigned pct, asked;
	double got;
	int r;

	if (proto_parse_load(line, &pct, err, sizeof(err)) < 0)
		return send_error(c, "", err);
	load_stop(&asked, &got);
	if (asked && isfinite(got) && got >= 0 && got <= 100)
		snprintf(got_s, sizeof(got_s), "%.1f", got);
	r = bgload_start(&agent_load, pct);
	if (r < 0) {
		agent_load.pct = 0;
		return send_error(c, "LOAD: the background load could not be started: ", strerror(-r));
	}
	return proto_send(c, "LOADED %u %s", asked, got_s);
}

/* The filesystem PREPARE mounted, unmounted when the agent leaves. */
static bool agent_mounted;

/* PREPARE: make the filesystem and mount it, answer PREPARED with what was
 * made, or ERROR. A negative errno when the channel failed, else 0. */
static int prepare(struct proto_conn *c, const char *line)
{
	struct proto_prepare req;
	char err[512], *text;
	json_t *rec = NULL;
	int r;

	if (proto_parse_prepare(line, &req, err, sizeof(err)) < 0)
		return send_error(c, "", err);
	if (agent_mounted)
		return send_error(c, "", "PREPARE: a filesystem is mounted already (one PREPARE per session)");
	if ((*req.share ? lab_fs_mount_share(lab_share_find(req.share), PROTO_MOUNTPOINT, &rec, err, sizeof(err))
			: lab_fs_make(lab_fs_find(req.fs), req.device, PROTO_MOUNTPOINT, &rec, err, sizeof(err))) < 0)
		return send_error(c, "PREPARE: ", err);
	agent_mounted = true;
	text = json_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	r = text ? proto_send(c, "PREPARED %s", text) : send_error(c, "", "PREPARE: out of memory");
	free(text);
	return r;
}

/* Answer one line from the host. 1 after BYE, 2 after REBOOT, 0 to go on,
 * a negative errno when the channel failed. */
static int serve_line(struct proto_conn *c, const char *line)
{
	struct proto_run req;
	char err[512], arg[128];
	int r;

	if (!strcmp(line, "BYE") || !strcmp(line, "REBOOT")) {
		unsigned asked;
		double got;

		load_stop(&asked, &got);
		serve_stop();
		/* unmounted before the answer: the guest powers off (or
		 * reboots) after it */
		if (agent_mounted)
			lab_fs_unmount(PROTO_MOUNTPOINT);
		agent_mounted = false;
		return proto_send(c, "BYE") < 0 ? -EPIPE : line[0] == 'B' ? 1 : 2;
	}
	if (!strncmp(line, "PREPARE ", 8))
		return prepare(c, line);
	if (!strncmp(line, "LOAD ", 5))
		return load(c, line);
	if (!strncmp(line, "TOKEN ", 6)) {
		/* the environment every later run and serve inherits */
		if (proto_parse_token(line, arg, sizeof(arg), err, sizeof(err)) < 0)
			return send_error(c, "", err);
		return setenv("VMBENCH_NET_TOKEN", arg, 1) < 0 ? send_error(c, "setenv: ", strerror(errno))
								 : proto_send(c, "OK");
	}
	if (!strncmp(line, "SERVE ", 6)) {
		if (proto_parse_serve(line, arg, sizeof(arg), err, sizeof(err)) < 0)
			return send_error(c, "", err);
		return serve_start(c, arg);
	}
	if (strncmp(line, "RUN ", 4))
		return send_error(c, "expected 'RUN <suite[.test]> <options JSON>', 'PREPARE <JSON>', "
				  "'TOKEN <secret>', 'SERVE <address>', 'LOAD <percent>', 'REBOOT' or 'BYE', not: ", line);
	if (proto_parse_run(line, run_opts, &req, err, sizeof(err)) < 0)
		return send_error(c, "", err);
	r = run_one(c, &req);
	proto_run_release(&req);
	return r;
}

/* vmbench.queues=N on the kernel command line (the lab's queues key): the
 * NIC's queue pairs, set before the fingerprint that shows them. A
 * failure is said on the console; the host's check of the fingerprint
 * fails the boot. */
static void agent_queues(void)
{
	char *cmdline = NULL, why[256];
	unsigned n;

	if (read_file("/proc/cmdline", &cmdline) == 0 && lab_cmdline_queues(cmdline, strlen(cmdline), &n) == 0 &&
	    lab_set_queues(n, why, sizeof(why)) < 0)
		log_error("agent: vmbench.queues=%u: %s", n, why);
	free(cmdline);
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
	double idle;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	log_set_level(LOG_ERROR);
	(void)signal(SIGPIPE, SIG_IGN);
	port = optset_str(&own, "port");
	idle = optset_double(&own, "idle");
	if (strcmp(port, "-")) {
		ret = open_port(port, &fd);
		if (ret)
			goto out;
		proto_init(&c, fd, fd);
	} else {
		proto_init(&c, STDIN_FILENO, STDOUT_FILENO);
	}
	agent_queues();
	agent_bond();
	fp = probe_fingerprint(&(struct probe_src){ .root = "/" });
	fps = fp ? json_dumps(fp, JSON_COMPACT) : NULL;
	ret = EXIT_FAILED;
	if (!fps) {
		log_error("agent: no fingerprint of this machine");
		goto release;
	}
	r = proto_send(&c, "HELLO %d %s", PROTO_VERSION, fps);
	if (r < 0) {
		log_errno(r, "agent: sending HELLO");
		goto release;
	}
	for (;;) {
		char *line = NULL;

		r = proto_recv_line(&c, (int)(idle * 1000), &line);
		if (r == -EPROTO) {
			/* a NUL byte or an overlong line: dropped, said, and the
			 * channel goes on */
			log_error("agent: the host sent %s", c.err);
			r = send_error(&c, "the host sent ", c.err);
		} else if (r == 0) {
			r = serve_line(&c, line);
			free(line);
		}
		if (r == 1 || r == 2) {
			/* after REBOOT, what started the agent reboots the guest */
			ret = r == 1 ? EXIT_OK : PROTO_EXIT_REBOOT;
			break;
		}
		if (r == -ETIMEDOUT) {
			log_error("agent: the host said nothing for %.0f s (--idle): leaving", idle);
			break;
		}
		if (r == -EPIPE) {
			log_error("agent: the host closed the channel");
			break;
		}
		if (r < 0) {
			log_errno(r, "agent: the channel to the host");
			break;
		}
	}
release:
	{
		unsigned asked;
		double got;

		load_stop(&asked, &got);
	}
	serve_stop();
	if (agent_mounted)
		lab_fs_unmount(PROTO_MOUNTPOINT);
	proto_release(&c);
out:
	if (fd >= 0)
		close(fd);
	free(fps);
	json_decref(fp);
	cmd_release(&own, NULL, &pos);
	return ret;
}
