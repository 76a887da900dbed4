/* QMP client. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "qmp.h"
#include "../core/clock.h"
#include "../core/banned.h"

int qmp_parse_line(struct qmp *q, const char *line, json_t **out)
{
	json_t *msg = json_loads(line, 0, NULL);

	if (!json_is_object(msg)) {
		snprintf(q->err, sizeof(q->err), "QMP: not a JSON object: '%.80s'", line);
		json_decref(msg);
		return -EPROTO;
	}
	if (json_object_get(msg, "event")) {
		/* remembered when there is room; an event lost to memory is no error */
		if (json_array_append_new(q->events, msg) < 0)
			json_decref(msg);
		return 1;
	}
	*out = msg;
	return 0;
}

static int reply(struct qmp *q, int timeout_ms, json_t **out)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		uint64_t now = clock_ns();
		char *line = NULL;
		int r = now < deadline ? proto_recv_line(&q->conn, (int)((deadline - now) / 1000000), &line) : -ETIMEDOUT;

		if (r < 0) {
			snprintf(q->err, sizeof(q->err), "QMP: %s", r == -ETIMEDOUT ? "no answer in time"
								    : r == -EPIPE ? "QEMU closed the socket" : strerror(-r));
			return r;
		}
		r = qmp_parse_line(q, line, out);
		free(line);
		if (r <= 0)
			return r;
	}
}

int qmp_result(struct qmp *q, const char *cmd, json_t *msg, json_t **ret)
{
	if (json_object_get(msg, "error")) {
		snprintf(q->err, sizeof(q->err), "QMP %s: %s", cmd,
			 json_string_value(json_object_get(json_object_get(msg, "error"), "desc")) ?: "error");
		json_decref(msg);
		return -EIO;
	}
	if (!json_object_get(msg, "return")) {
		snprintf(q->err, sizeof(q->err), "QMP %s: a reply with neither return nor error", cmd);
		json_decref(msg);
		return -EPROTO;
	}
	if (ret)
		*ret = json_incref(json_object_get(msg, "return"));
	json_decref(msg);
	return 0;
}

int qmp_connect(struct qmp *q, const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;
	json_t *greeting = NULL;
	int r;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->events = json_array();
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(q->err, sizeof(q->err), "QMP socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* QEMU creates the socket while it starts: try until the deadline */
	for (;;) {
		q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (q->fd < 0)
			return -errno;
		if (connect(q->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		r = -errno;
		close(q->fd);
		q->fd = -1;
		if (clock_ns() >= deadline || (r != -ENOENT && r != -ECONNREFUSED)) {
			snprintf(q->err, sizeof(q->err), "QMP: cannot connect to %s: %s", path, strerror(-r));
			return r;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	proto_init(&q->conn, q->fd, q->fd);
	r = reply(q, timeout_ms, &greeting);
	if (r == 0 && !json_object_get(greeting, "QMP")) {
		snprintf(q->err, sizeof(q->err), "QMP: the greeting is not QEMU's");
		r = -EPROTO;
	}
	json_decref(greeting);
	if (r == 0)
		r = qmp_execute(q, "qmp_capabilities", NULL, timeout_ms, NULL);
	return r;
}

int qmp_execute(struct qmp *q, const char *cmd, json_t *args, int timeout_ms, json_t **ret)
{
	json_t *req = json_pack("{s:s}", "execute", cmd), *msg = NULL;
	char *text;
	int r;

	/* never a command sent without the arguments it was given */
	if (args && (!req || json_object_set_new(req, "arguments", args) < 0)) {
		json_decref(req);
		return -ENOMEM;
	}
	text = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!text)
		return -ENOMEM;
	r = proto_send(&q->conn, "%s", text);
	free(text);
	if (r < 0) {
		snprintf(q->err, sizeof(q->err), "QMP: sending %s: %s", cmd, strerror(-r));
		return r;
	}
	r = reply(q, timeout_ms, &msg);
	if (r < 0)
		return r;
	return qmp_result(q, cmd, msg, ret);
}

int qmp_parse_vcpus(struct qmp *q, const json_t *cpus, int **tids, size_t *n)
{
	size_t i, count = json_array_size(cpus);
	int *out;
	json_t *c;

	if (!json_is_array(cpus) || !count) {
		snprintf(q->err, sizeof(q->err), "QMP query-cpus-fast: no vCPUs listed");
		return -EPROTO;
	}
	out = calloc(count, sizeof(*out));
	if (!out)
		return -ENOMEM;
	json_array_foreach(cpus, i, c) {
		json_t *idx = json_object_get(c, "cpu-index"), *tid = json_object_get(c, "thread-id");
		json_int_t k = json_integer_value(idx), t = json_integer_value(tid);

		/* each index once, each thread a real one: a 0 would pin this process */
		if (!json_is_integer(idx) || !json_is_integer(tid) || k < 0 || (size_t)k >= count || out[k] ||
		    t <= 0 || t > INT32_MAX) {
			snprintf(q->err, sizeof(q->err), "QMP query-cpus-fast: entry %zu has no valid, unique cpu-index "
				 "and thread-id", i);
			free(out);
			return -EPROTO;
		}
		out[k] = (int)t;
	}
	*tids = out;
	*n = count;
	return 0;
}

int qmp_vcpu_threads(struct qmp *q, int timeout_ms, int **tids, size_t *n)
{
	json_t *cpus = NULL;
	int r = qmp_execute(q, "query-cpus-fast", NULL, timeout_ms, &cpus);

	if (r < 0)
		return r;
	r = qmp_parse_vcpus(q, cpus, tids, n);
	json_decref(cpus);
	return r;
}

int qmp_parse_balloon(struct qmp *q, const json_t *ret, uint64_t *actual)
{
	const json_t *a = json_object_get(ret, "actual");
	json_int_t v = json_integer_value(a);

	/* a guest's memory: at least a byte, at most the lab's largest mem (1T) and then some */
	if (!json_is_integer(a) || v < 1 || v > (json_int_t)1 << 50) {
		snprintf(q->err, sizeof(q->err), "QMP query-balloon: no actual size in bytes (1 to 2^50)");
		return -EPROTO;
	}
	*actual = (uint64_t)v;
	return 0;
}

int qmp_balloon_actual(struct qmp *q, int timeout_ms, uint64_t *actual)
{
	json_t *ret = NULL;
	int r = qmp_execute(q, "query-balloon", NULL, timeout_ms, &ret);

	if (r == 0)
		r = qmp_parse_balloon(q, ret, actual);
	json_decref(ret);
	return r;
}

int qmp_parse_status(struct qmp *q, const json_t *ret, char *status, size_t len)
{
	const char *s = json_string_value(json_object_get(ret, "status"));
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 31 || n >= len || strspn(s, "abcdefghijklmnopqrstuvwxyz-") != n) {
		snprintf(q->err, sizeof(q->err), "QMP query-status: no run state (a word of lowercase letters and "
			 "hyphens)");
		return -EPROTO;
	}
	memcpy(status, s, n + 1);
	return 0;
}

int qmp_run_state(struct qmp *q, int timeout_ms, char *status, size_t len)
{
	json_t *ret = NULL;
	int r = qmp_execute(q, "query-status", NULL, timeout_ms, &ret);

	if (r == 0)
		r = qmp_parse_status(q, ret, status, len);
	json_decref(ret);
	return r;
}

/* QEMU's run states after which the guest does not run again by itself
 * (a paused or shut down guest is the lab's own doing, or QEMU exits) */
static const char *const final_states[] = { "internal-error", "guest-panicked" };

bool qmp_state_final(const char *status)
{
	for (size_t i = 0; i < sizeof(final_states) / sizeof(final_states[0]); i++)
		if (!strcmp(status, final_states[i]))
			return true;
	return false;
}

/* A figure of query-migrate: absent is -1, else a number in [0, max] */
static int migrate_figure(const json_t *o, const char *name, double max, double *out)
{
	const json_t *v = json_object_get(o, name);

	*out = -1;
	if (!v)
		return 0;
	if (!json_is_number(v) || !(json_number_value(v) >= 0) || json_number_value(v) > max)
		return -EPROTO;
	*out = json_number_value(v);
	return 0;
}

int qmp_parse_migrate(struct qmp *q, const json_t *ret, struct qmp_migration *m)
{
	/* QEMU 7.2's MigrationStatus */
	static const char *const states[] = { "none", "setup", "cancelling", "cancelled", "active", "postcopy-active",
					       "postcopy-paused", "postcopy-recover", "completed", "failed", "colo",
					       "pre-switchover", "device", "wait-unplug" };
	const char *st = json_string_value(json_object_get(ret, "status"));
	const json_t *ram = json_object_get(ret, "ram");
	const char *bad = NULL;
	struct qmp_migration out = { .status = "" };
	size_t i;

	/* before a migration, QEMU 7.2 returns {} */
	if (json_is_object(ret) && !st && !json_object_size(ret))
		st = "none";
	for (i = 0; st && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(st, states[i]))
			break;
	if (!json_is_object(ret) || !st || i == sizeof(states) / sizeof(states[0])) {
		snprintf(q->err, sizeof(q->err), "QMP query-migrate: no known status");
		return -EPROTO;
	}
	snprintf(out.status, sizeof(out.status), "%s", st);
	if (migrate_figure(ret, "total-time", 1e9, &out.total_ms) < 0)
		bad = "total-time";
	else if (migrate_figure(ret, "downtime", 1e9, &out.downtime_ms) < 0)
		bad = "downtime";
	else if (migrate_figure(ret, "setup-time", 1e9, &out.setup_ms) < 0)
		bad = "setup-time";
	else if (ram && !json_is_object(ram))
		bad = "ram";
	else if (migrate_figure(ram, "transferred", 0x1p60, &out.transferred) < 0)
		bad = "ram.transferred";
	else if (migrate_figure(ram, "dirty-pages-rate", 1e12, &out.dirty_rate) < 0)
		bad = "ram.dirty-pages-rate";
	else if (migrate_figure(ram, "dirty-sync-count", 1e9, &out.passes) < 0)
		bad = "ram.dirty-sync-count";
	else if (migrate_figure(ram, "postcopy-bytes", 0x1p60, &out.postcopy_bytes) < 0)
		bad = "ram.postcopy-bytes";
	else if (migrate_figure(ram, "page-size", 1 << 30, &out.page_size) < 0)
		bad = "ram.page-size";
	if (bad) {
		snprintf(q->err, sizeof(q->err), "QMP query-migrate: %s is not a number in its range", bad);
		return -EPROTO;
	}
	if (json_is_string(json_object_get(ret, "error-desc")))
		proto_quote(out.error, sizeof(out.error), json_string_value(json_object_get(ret, "error-desc")), 190);
	*m = out;
	return 0;
}

int qmp_migration(struct qmp *q, int timeout_ms, struct qmp_migration *m)
{
	json_t *ret = NULL;
	int r = qmp_execute(q, "query-migrate", NULL, timeout_ms, &ret);

	if (r == 0)
		r = qmp_parse_migrate(q, ret, m);
	json_decref(ret);
	return r;
}

int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms)
{
	uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000;

	for (;;) {
		uint64_t now = clock_ns();
		size_t before = json_array_size(q->events);
		json_t *msg = NULL, *ev;
		char *line = NULL;
		int r;

		if (now >= deadline)
			return 0;
		r = proto_recv_line(&q->conn, (int)((deadline - now + 999999) / 1000000), &line);
		if (r == -ETIMEDOUT)
			return 0;
		if (r < 0) {
			snprintf(q->err, sizeof(q->err), "QMP: %s", r == -EPIPE ? "QEMU closed the socket" : strerror(-r));
			return r;
		}
		r = qmp_parse_line(q, line, &msg);
		free(line);
		if (r == 0) {
			json_decref(msg);
			snprintf(q->err, sizeof(q->err), "QMP: a reply that no command awaits");
			return -EPROTO;
		}
		if (r < 0)
			return r;
		ev = json_array_get(q->events, json_array_size(q->events) - 1);
		if (json_array_size(q->events) > before &&
		    !strcmp(json_string_value(json_object_get(ev, "event")) ?: "", name))
			return 1;
	}
}

void qmp_close(struct qmp *q)
{
	proto_release(&q->conn);
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	json_decref(q->events);
	q->events = NULL;
}
