/* lab run's --connect: one connection (lab_request_go), or several hosts.
 *
 * Over several hosts, --connect is given once per host (a libvirt
 * URI, or "direct" for QEMU driven here). Each host's matrix runs in a
 * process of its own, forked once the options are checked, which connects
 * (lab_request_go) and runs the whole matrix as lab run does, into one
 * session; the hosts run in parallel, but the connections that reach one
 * machine (this one: qemu:///system, test:///default, direct, or a host
 * name or address of its own, as 127.0.0.2; or one
 * remote host) run one after another, so that one host's guests do not
 * disturb each other. A host that fails (its connection refused, its
 * daemon gone mid-matrix) fails its own process only: what the others
 * stored is kept and compared. Each process's messages say its host
 * ("vmbench [URI]: ..."); its own table, which the session's comparison
 * repeats, is kept out of the way, in a file of no name, and shown with
 * --verbose. Then the session's comparison, host x configuration, as lab
 * report draws it: each configuration named with its connection first
 * (hv_uri=URI accel=tcg ...), the host measured here as one baseline. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "lab.h"
#include "../core/log.h"
#include "../core/opts.h"
#include "../core/stop.h"
#include "../core/str.h"
#include "../lab/hv.h"
#include "../store/db.h"
#include "../store/label.h"
#include "../core/banned.h"

/* A --connect value as text a terminal may show and a label may hold: not
 * empty (libvirt takes "" for its own default URI, which is nothing the
 * user named), at most LAB_URI_MAX bytes, no control byte (said by its
 * place, never echoed), UTF-8. CMD_CONTINUE or EXIT_USAGE. */
#define LAB_URI_MAX 400
static int connect_text(const struct vmb_cmd *self, const char *uri)
{
	size_t n = strlen(uri);
	long at;

	if (!n)
		return cmd_usage_error(self, "--connect needs a libvirt URI, e.g. qemu:///system or "
				       "qemu+ssh://HOST/system, or 'direct' for QEMU driven here");
	if (n > LAB_URI_MAX)
		return cmd_usage_error(self, "--connect: a URI of %zu bytes; at most %d", n, LAB_URI_MAX);
	at = str_find_control(uri, n);
	if (at >= 0)
		return cmd_usage_error(self, "--connect: the URI has a control character (byte %ld)", at + 1);
	at = str_find_bad_utf8(uri, n);
	if (at >= 0)
		return cmd_usage_error(self, "--connect: the URI is not UTF-8 (byte %ld)", at + 1);
	return CMD_CONTINUE;
}

int lab_connect(const struct vmb_cmd *self, const char *uri, double timeout_s)
{
	char why[1024], label[512];
	int r = connect_text(self, uri);

	if (r != CMD_CONTINUE)
		return r;
	/* said by its label from here: the URI without its query, nor a password */
	lab_hv_uri_label(uri, label, sizeof(label));
	if (label_check("hv_uri", 6, label, strlen(label), LABEL_SELECT, why, sizeof(why)) < 0)
		return cmd_usage_error(self, "--connect %s: %s", label, why);
	lab_hv_set_uri(label);
	if (!strcmp(uri, "direct"))
		return CMD_CONTINUE;
	r = lab_hv_libvirt_connect(uri, timeout_s, why, sizeof(why));
	if (r < 0) {
		log_error("--connect %s: %s", label, why);
		return r == -EOPNOTSUPP ? EXIT_USAGE : EXIT_FAILED;
	}
	log_info("the guests through libvirt at %s (host %s)", label, lab_hv_libvirt_host());
	return CMD_CONTINUE;
}

int lab_request_go(const struct vmb_cmd *self, struct lab_request *rq, const char *cache)
{
	int ret;

	/* --connect: the session's guests through libvirt, connected before the
	 * plan, whose configurations say what it cannot carry ("direct": QEMU
	 * here, as without it, but labelled so); a study connected already */
	if (!rq->from_study && (rq->fleet_uri || optset_str(&rq->own, "connect"))) {
		ret = lab_connect(self, rq->fleet_uri ? rq->fleet_uri : optset_str(&rq->own, "connect"),
				  optset_double(&rq->own, "connect-timeout"));
		if (ret != CMD_CONTINUE)
			return ret;
	}
	if (rq->verb == LAB_VERB_RUN && !rq->from_study && optset_str(&rq->own, "migrate-to")) {
		const char *to = optset_str(&rq->own, "migrate-to");
		char why[1024], label[512];
		int r;

		ret = connect_text(self, to);
		if (ret != CMD_CONTINUE)
			return ret;
		lab_hv_uri_label(to, label, sizeof(label));
		if (lab_hv_default() == &lab_hv_qemu)
			return cmd_usage_error(self, "--migrate-to %s: it moves guests between libvirt hosts: give the "
					       "first with --connect URI", label);
		r = lab_hv_libvirt_migrate_to(to, optset_double(&rq->own, "connect-timeout"), why, sizeof(why));
		if (r < 0) {
			log_error("--migrate-to %s: %s", label, why);
			return r == -EOPNOTSUPP ? EXIT_USAGE : EXIT_FAILED;
		}
		log_info("vmops.migrate moves the guests to %s", label);
	}
	/* not given: its row's default, --quick's under --quick */
	if (rq->verb == LAB_VERB_RUN && !rq->boots)
		rq->boots = (unsigned)optset_int(&rq->own, "boots");
	if (rq->verb == LAB_VERB_CONTEND)
		return lab_contend_cmd(self, rq, cache);
	ret = lab_run(self, rq, cache);
	/* a daemon lost after its configurations (during the last one's shut
	 * down): said when it was, and the run fails with it */
	if (ret == EXIT_OK && lab_hv_libvirt_lost()) {
		log_error("the libvirt daemon was lost during the run: its results stored before are kept");
		ret = EXIT_FAILED;
	}
	return ret;
}

/* One --connect value and its process */
struct fleet_host {
	const char *uri;
	char label[512]; /* hv_uri's value */
	char host[256];  /* the machine it reaches ("": this one) */
	size_t group;    /* the first host of its machine: one process at a time there */
	int out;         /* its stdout, a file of no name */
	pid_t pid;       /* running (0: not started, or done) */
	bool started, done;
	int rc;
};

static int count_row(const struct db_row *row, void *arg)
{
	(void)row;
	++*(size_t *)arg;
	return 0;
}

/* How many results the session stored (over every host's process) */
static size_t session_runs(const struct optset *own, const char *session)
{
	char path[4096], kv[128];
	struct strv filter = { 0 };
	struct db *db = NULL;
	size_t n = 0;

	snprintf(kv, sizeof(kv), "%s=%s", LAB_SESSION_LABEL, session);
	if (db_default_path(optset_str(own, "db"), path, sizeof(path)) == 0 && strv_push(&filter, kv) == 0 &&
	    db_open(path, false, &db) == 0)
		(void)db_list(db, &filter, count_row, &n);
	db_close(db);
	strv_clear(&filter);
	return n;
}

static bool addr_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static bool addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (!a || !b || a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

/* The machine a URI's host name reaches, as its name does not say: ""
 * when it is this one by another name (127.0.0.2, this host's name, one
 * of its addresses), else the smallest of its addresses, so that two names
 * of one remote machine are one; the name as it is when it resolves to
 * nothing here */
static void fleet_machine(char *host, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct ifaddrs *ifs = NULL;
	char name[256], best[INET6_ADDRSTRLEN] = "";
	size_t n = strlen(host);
	bool here = false;

	if (!*host)
		return;
	if (gethostname(name, sizeof(name)) == 0 && !strcasecmp(name, host)) {
		*host = '\0';
		return;
	}
	/* an IPv6 address without its brackets */
	snprintf(name, sizeof(name), "%.*s", (int)(host[0] == '[' && n > 1 ? n - 2 : n), host + (host[0] == '['));
	if (getaddrinfo(name, NULL, &hints, &ai) != 0)
		return;
	(void)getifaddrs(&ifs);
	for (const struct addrinfo *a = ai; a && !here; a = a->ai_next) {
		char num[INET6_ADDRSTRLEN];

		here = addr_loopback(a->ai_addr);
		for (const struct ifaddrs *i = ifs; i && !here; i = i->ifa_next)
			here = addr_same(a->ai_addr, i->ifa_addr);
		if (getnameinfo(a->ai_addr, a->ai_addrlen, num, sizeof(num), NULL, 0, NI_NUMERICHOST) == 0 &&
		    (!*best || strcmp(num, best) < 0))
			snprintf(best, sizeof(best), "%s", num);
	}
	freeaddrinfo(ai);
	if (ifs)
		freeifaddrs(ifs);
	if (here)
		*host = '\0';
	else if (*best)
		snprintf(host, len, "%s", best);
}

/* The hosts' values checked: each a URI or "direct", no two with one label */
static int fleet_hosts(const struct vmb_cmd *self, const struct strv *uris, struct fleet_host *h)
{
	for (size_t i = 0; i < uris->n; i++) {
		char why[512];
		int r;

		h[i].uri = uris->v[i];
		h[i].out = -1;
		r = connect_text(self, h[i].uri);
		if (r != CMD_CONTINUE)
			return r;
		lab_hv_uri_label(h[i].uri, h[i].label, sizeof(h[i].label));
		r = lab_hv_uri_host(h[i].uri, h[i].host, sizeof(h[i].host));
		if (r < 0)
			return cmd_usage_error(self, "--connect %s: %s", h[i].label,
					       r == -ENAMETOOLONG ? "its host name is too long"
								  : "neither a libvirt URI (DRIVER://[HOST]/PATH, e.g. "
								    "qemu+ssh://HOST/system) nor 'direct'");
		fleet_machine(h[i].host, sizeof(h[i].host));
		if (label_check("hv_uri", 6, h[i].label, strlen(h[i].label), LABEL_SELECT, why, sizeof(why)) < 0)
			return cmd_usage_error(self, "--connect %s: %s", h[i].label, why);
		h[i].group = i;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(h[j].label, h[i].label))
				return cmd_usage_error(self, "--connect %s and --connect %s are one connection to the "
							     "results (hv_uri=%s): give each host once",
						       h[j].label, h[i].label, h[i].label);
			if (!strcmp(h[j].host, h[i].host)) {
				h[i].group = h[j].group;
				break;
			}
		}
	}
	return CMD_CONTINUE;
}

/* The next host of group g not started yet, or SIZE_MAX */
static size_t fleet_next(const struct fleet_host *h, size_t n, size_t g)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].group == g && !h[i].started)
			return i;
	return SIZE_MAX;
}

static bool fleet_group_busy(const struct fleet_host *h, size_t n, size_t g)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].group == g && h[i].pid > 0)
			return true;
	return false;
}

/* Host i's process: its matrix through its one connection, its table into
 * its file. Never returns. */
static void fleet_child(const struct vmb_cmd *self, struct lab_request *rq, const char *cache, struct fleet_host *h,
			const char *session, const char *host_by)
{
	char mine[64];
	int ret;

	if (dup2(h->out, STDOUT_FILENO) < 0)
		_exit(EXIT_FAILED);
	/* Ctrl-C as for a plain lab run (its own handlers once it has guests);
	 * SIGUSR1, the parent's word to stop, stays a first request only */
	(void)signal(SIGINT, SIG_DFL);
	(void)signal(SIGTERM, SIG_DFL);
	(void)signal(SIGHUP, SIG_DFL);
	log_set_tag(h->label); /* the URI without its query, nor a password */
	rq->fleet_uri = h->uri;
	rq->fleet_label = h->label;
	rq->fleet_session = session;
	rq->fleet_host_by = host_by != h->label ? host_by : NULL;
	rq->session = mine; /* no report of its own: the session's comes after */
	rq->session_len = sizeof(mine);
	ret = lab_request_go(self, rq, cache);
	fflush(stdout);
	fflush(stderr);
	_exit(ret);
}

static int fleet_start(const struct vmb_cmd *self, struct lab_request *rq, const char *cache, struct fleet_host *h,
		       const char *session, const char *host_by)
{
	char path[4096];
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof(path), "%s/vmbench-fleet-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return log_errno(-errno, "a file for the table of %s", h->label);
	(void)unlink(path); /* of no name: nothing is left whatever ends the run */
	h->out = fd;
	fflush(stdout);
	fflush(stderr);
	h->pid = fork();
	if (h->pid < 0) {
		h->pid = 0;
		return log_errno(-errno, "a process for %s", h->label);
	}
	if (h->pid == 0)
		fleet_child(self, rq, cache, h, session, host_by);
	h->started = true;
	log_info("%s: started (process %d)", h->label, (int)h->pid);
	return 0;
}

/* The hosts' processes, for the signal handlers */
static struct fleet_host *fleet_sig_h;
static size_t fleet_sig_n;

static void fleet_forward(int sig)
{
	for (size_t i = 0; i < fleet_sig_n; i++)
		if (fleet_sig_h[i].pid > 0)
			(void)kill(fleet_sig_h[i].pid, sig);
}

/* SIGUSR1: a stop request only, never a second Ctrl-C. The parent says
 * stop with it: a terminal's Ctrl-C reached the hosts' processes already,
 * and another SIGINT would be their second, which ends them at once
 * (their guests killed, no cleanup of their own). */
static void fleet_on_usr1(int sig)
{
	(void)sig;
	vmb_request_stop();
}

/* SIGINT, SIGTERM, SIGHUP to the parent: the first asks every host's
 * process to stop, as a plain lab run stops (its kill reached only us, or
 * the whole group); a second ends them (SIGTERM: their own second) and us */
static void fleet_on_stop(int sig)
{
	int saved = errno;

	if (vmb_stop_requested()) {
		fleet_forward(SIGTERM);
		(void)signal(sig, SIG_DFL);
		(void)raise(sig);
		return;
	}
	vmb_request_stop();
	fleet_forward(SIGUSR1);
	errno = saved;
}

static int fleet_signals(struct fleet_host *h, size_t n)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct sigaction sa;

	fleet_sig_h = h;
	fleet_sig_n = n;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* no SA_RESTART: the wait for the hosts' processes returns to look */
		sa.sa_handler = sigs[i] == SIGUSR1 ? fleet_on_usr1 : fleet_on_stop;
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return log_errno(-errno, "installing the signal handlers");
	}
	return 0;
}

/* What host h's process printed, after it ended (--verbose) */
static void fleet_show(const struct fleet_host *h)
{
	char buf[8192];
	off_t off = 0;
	ssize_t k;

	if (h->out < 0 || log_get_level() < LOG_DEBUG)
		return;
	printf("== %s: its own table ==\n", h->label);
	while ((k = pread(h->out, buf, sizeof(buf), off)) > 0) {
		fwrite(buf, 1, (size_t)k, stdout);
		off += k;
	}
	printf("\n");
}

int lab_fleet(const struct vmb_cmd *self, struct lab_request *rq, const char *cache)
{
	const struct strv *uris = &optset_get(&rq->own, "connect")->kv;
	const char *spec = lab_baseline_spec(rq);
	struct fleet_host *h = calloc(uris->n, sizeof(*h));
	char session[40], sel[64];
	const char *host_by = NULL;
	size_t running = 0, failed = 0, stored;
	bool plan = optset_bool(&rq->own, "plan"), stopped = false;
	int ret;

	if (!h) {
		log_error("out of memory");
		return EXIT_FAILED;
	}
	ret = fleet_hosts(self, uris, h);
	/* one configuration named by its keys is one per host here */
	if (ret == CMD_CONTINUE && strcmp(spec, LAB_HOST) && strcmp(spec, "none"))
		ret = cmd_usage_error(self, "--baseline %s names a configuration, which runs on each of the %zu hosts: "
					    "give --baseline host (this machine, measured with the same suites) or none "
					    "(the first host's first configuration)", spec, uris->n);
	if (ret == CMD_CONTINUE)
		ret = cmd_check_output(self, optset_str(&rq->own, "output"));
	if (ret != CMD_CONTINUE)
		goto out;
	/* what every host's process would refuse (the matrix, --suites' options,
	 * --label...) refused once, here, as a user's mistake */
	rq->check_only = true;
	ret = lab_run(self, rq, cache);
	rq->check_only = false;
	if (ret != EXIT_OK)
		goto out;
	/* this machine is measured by one process, the first that reaches it
	 * (its guests one after another with the host's runs), else the first */
	for (size_t i = 0; i < uris->n && !host_by; i++)
		if (!*h[i].host)
			host_by = h[i].label;
	if (!host_by)
		host_by = h[0].label;
	if (fleet_signals(h, uris->n) < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	/* a plan is each host's, in turn */
	for (size_t i = 0; plan && i < uris->n; i++)
		h[i].group = 0;
	lab_session_new(session, sizeof(session));
	if (!plan)
		log_info("lab session %s=%s over %zu hosts", LAB_SESSION_LABEL, session, uris->n);
	for (;;) {
		int status;
		pid_t pid;

		if (vmb_stop_requested()) {
			/* again after each wake: a process forked as the signal came
			 * (a stop request only, which may come twice) */
			stopped = true;
			fleet_forward(SIGUSR1);
		}
		for (size_t i = 0; !stopped && i < uris->n; i++) {
			size_t next;

			if (h[i].group != i || fleet_group_busy(h, uris->n, i))
				continue;
			next = fleet_next(h, uris->n, i);
			if (next == SIZE_MAX)
				continue;
			if (fleet_start(self, rq, cache, &h[next], session, host_by) < 0) {
				h[next].started = h[next].done = true;
				h[next].rc = EXIT_FAILED;
				failed++;
				continue;
			}
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			log_errno(-errno, "waiting for the hosts' processes");
			break;
		}
		for (size_t i = 0; i < uris->n; i++) {
			if (h[i].pid != pid)
				continue;
			h[i].pid = 0;
			h[i].done = true;
			h[i].rc = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILED;
			running--;
			if (h[i].rc != EXIT_OK)
				failed++;
			if (WIFSIGNALED(status))
				log_error("%s: its process ended by signal %d", h[i].label, WTERMSIG(status));
			else
				log_info("%s: %s (exit %d)", h[i].label, h[i].rc == EXIT_OK ? "done" : "failed", h[i].rc);
			fleet_show(&h[i]);
		}
	}
	if (plan) {
		/* each host's plan is what it printed */
		for (size_t i = 0; i < uris->n; i++) {
			char buf[8192];
			off_t off = 0;
			ssize_t k;

			printf("== on %s ==\n", h[i].label);
			while (h[i].out >= 0 && (k = pread(h[i].out, buf, sizeof(buf), off)) > 0) {
				fwrite(buf, 1, (size_t)k, stdout);
				off += k;
			}
		}
		ret = failed ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	for (size_t i = 0; i < uris->n; i++)
		if (!h[i].started)
			log_error("%s: not started; the other hosts' results are kept", h[i].label);
		else if (h[i].rc != EXIT_OK)
			log_error("%s: %s (exit %d); the other hosts' results are kept", h[i].label,
				  h[i].rc == EXIT_INTERRUPTED ? "interrupted" : "failed", h[i].rc);
	if (stopped) {
		log_error("interrupted: what the hosts stored before is in lab session %s=%s", LAB_SESSION_LABEL,
			  session);
		ret = EXIT_INTERRUPTED;
		goto out;
	}
	stored = session_runs(&rq->own, session);
	if (!stored) {
		log_error("no host stored a result");
		ret = EXIT_FAILED;
		goto out;
	}
	/* the session's comparison, every host's configurations in it */
	snprintf(sel, sizeof(sel), "%s=%s", LAB_SESSION_LABEL, session);
	ret = lab_report(self, &rq->own, sel);
	if (ret == EXIT_OK && failed)
		ret = EXIT_FAILED;
	log_info("lab session %s=%s: 'vmbench lab report %s' redraws this comparison", LAB_SESSION_LABEL, session,
		 sel);
out:
	fleet_sig_n = 0;
	for (size_t i = 0; i < uris->n; i++)
		if (h[i].out >= 0)
			close(h[i].out);
	free(h);
	return ret;
}
