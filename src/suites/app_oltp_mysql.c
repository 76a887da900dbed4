/* The MariaDB/MySQL OLTP back end, through MariaDB's C client library:
 * server-side prepared statements (sysbench --db-ps-mode=auto). Its
 * ignorable errors are sysbench's --mysql-ignore-errors=auto (deadlock 1213,
 * lock wait timeout 1205, record changed 1020) and the duplicate key (1062)
 * a concurrent delete+insert of the same id can raise.
 *
 * URL: mysql://USER[:PASSWORD]@HOST[:PORT][/DB][?socket=PATH]. */
#include <dlfcn.h>
#include <errno.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_oltp.h"
#include "../core/banned.h"

/* The client library is opened at run time, not linked: vmbench's own
 * dependencies (and the lab's guest images, which carry them) stay small,
 * and the back end works wherever libmariadb.so.3 is installed. */
#define MY_FUNCS(X) X(mysql_init) X(mysql_real_connect) X(mysql_error) X(mysql_errno) X(mysql_close) X(mysql_real_query) X(mysql_store_result) X(mysql_free_result) X(mysql_field_count) X(mysql_stmt_init) X(mysql_stmt_prepare) X(mysql_stmt_close) X(mysql_stmt_errno) X(mysql_stmt_error) X(mysql_stmt_bind_param) X(mysql_stmt_execute) X(mysql_stmt_field_count) X(mysql_stmt_store_result) X(mysql_stmt_num_rows) X(mysql_stmt_free_result) X(mysql_stmt_affected_rows)

static struct {
	void *h;
#define X(f) __typeof__(f) *f;
	MY_FUNCS(X)
#undef X
} my;
static pthread_once_t my_once = PTHREAD_ONCE_INIT;
static char my_err[256];

static void my_load_once(void)
{
	void *h = dlopen("libmariadb.so.3", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(my_err, sizeof(my_err), "libmariadb.so.3 is not installed here (Debian: libmariadb3)");
		return;
	}
#define X(f) \
	if (!(my.f = (__typeof__(f) *)dlsym(h, #f))) { \
		snprintf(my_err, sizeof(my_err), "libmariadb.so.3 has no " #f); \
		(void)dlclose(h); \
		return; \
	}
	MY_FUNCS(X)
#undef X
	my.h = h;
}

static int my_load(char *err, size_t errlen)
{
	(void)pthread_once(&my_once, my_load_once);
	if (my.h)
		return 0;
	snprintf(err, errlen, "%s", my_err);
	return -EOPNOTSUPP;
}

struct my_conn {
	MYSQL *m;
	MYSQL_STMT **st;
	unsigned nst;
};

struct my_url {
	char user[128], pass[128], host[256], db[128], socket[512];
	unsigned port;
};

/* Percent-decoding is not needed for the names this takes; a malformed URL
 * is refused with the form that works. */
static int my_parse(const char *url, struct my_url *u, char *err, size_t errlen)
{
	const char *p = strstr(url, "://"), *at, *slash, *q, *colon;
	char hostport[300];

	memset(u, 0, sizeof(*u));
	if (!p)
		goto bad;
	p += 3;
	at = strchr(p, '@');
	if (at) {
		colon = memchr(p, ':', (size_t)(at - p));
		snprintf(u->user, sizeof(u->user), "%.*s", (int)((colon ? colon : at) - p), p);
		if (colon)
			snprintf(u->pass, sizeof(u->pass), "%.*s", (int)(at - colon - 1), colon + 1);
		p = at + 1;
	}
	q = strchr(p, '?');
	slash = strchr(p, '/');
	if (slash && q && slash > q)
		slash = NULL;
	snprintf(hostport, sizeof(hostport), "%.*s", (int)((slash ? slash : q ? q : p + strlen(p)) - p), p);
	colon = strrchr(hostport, ':');
	if (colon) {
		char *end;
		unsigned long port = strtoul(colon + 1, &end, 10);

		if (*end || port == 0 || port > 65535)
			goto bad;
		u->port = (unsigned)port;
		hostport[colon - hostport] = '\0';
	}
	snprintf(u->host, sizeof(u->host), "%s", hostport);
	if (slash)
		snprintf(u->db, sizeof(u->db), "%.*s", (int)((q ? q : slash + strlen(slash)) - slash - 1), slash + 1);
	if (q) {
		if (strncmp(q + 1, "socket=", 7))
			goto bad;
		snprintf(u->socket, sizeof(u->socket), "%s", q + 8);
	}
	return 0;
bad:
	snprintf(err, errlen, "expected mysql://USER[:PASSWORD]@HOST[:PORT][/DB][?socket=PATH]");
	return -EINVAL;
}

static int my_check_url(const char *url, char *err, size_t errlen)
{
	struct my_url u;
	int r = my_parse(url, &u, err, errlen);

	return r < 0 ? r : my_load(err, errlen);
}

static int my_errno_to(unsigned e, const char *msg, char *err, size_t errlen)
{
	switch (e) {
	case ER_LOCK_DEADLOCK:
	case ER_LOCK_WAIT_TIMEOUT:
	case ER_CHECKREAD:
	case ER_DUP_ENTRY:
		return OLTP_RETRY;
	default:
		break;
	}
	snprintf(err, errlen, "%s (error %u)", msg, e);
	/* 2006 server gone, 2013 lost during query: the client's CR_* codes */
	return e >= 2000 && e < 3000 ? -ECONNRESET : -EIO;
}

static void my_disconnect(void *conn)
{
	struct my_conn *c = conn;

	if (!c)
		return;
	for (unsigned i = 0; i < c->nst; i++)
		if (c->st[i])
			(void)my.mysql_stmt_close(c->st[i]);
	free(c->st);
	if (c->m)
		my.mysql_close(c->m);
	free(c);
}

static int my_connect(const struct oltp_conf *conf, void **conn, char *err, size_t errlen)
{
	struct my_conn *c;
	struct my_url u;
	int r = my_parse(conf->url, &u, err, errlen);

	if (r == 0)
		r = my_load(err, errlen);
	if (r < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->m = my.mysql_init(NULL))) {
		free(c);
		return -ENOMEM;
	}
	if (!my.mysql_real_connect(c->m, u.host[0] ? u.host : NULL, u.user[0] ? u.user : NULL, u.pass,
				u.db[0] ? u.db : NULL, u.port, u.socket[0] ? u.socket : NULL, 0)) {
		snprintf(err, errlen, "%s", my.mysql_error(c->m));
		my_disconnect(c);
		return -ECONNREFUSED;
	}
	*conn = c;
	return 0;
}

static int my_exec(void *conn, const char *sql, char *err, size_t errlen)
{
	struct my_conn *c = conn;
	MYSQL_RES *res;

	if (my.mysql_real_query(c->m, sql, strlen(sql)))
		return my_errno_to(my.mysql_errno(c->m), my.mysql_error(c->m), err, errlen);
	res = my.mysql_store_result(c->m);
	if (res)
		my.mysql_free_result(res);
	else if (my.mysql_field_count(c->m))
		return my_errno_to(my.mysql_errno(c->m), my.mysql_error(c->m), err, errlen);
	return 0;
}

static int my_prepare(void *conn, unsigned id, const char *sql, unsigned nparams, char *err, size_t errlen)
{
	struct my_conn *c = conn;
	MYSQL_STMT *st;

	(void)nparams;
	if (id >= c->nst) {
		MYSQL_STMT **a = realloc(c->st, (id + 1) * sizeof(*a));

		if (!a)
			return -ENOMEM;
		memset(a + c->nst, 0, (id + 1 - c->nst) * sizeof(*a));
		c->st = a;
		c->nst = id + 1;
	}
	if (c->st[id]) {
		(void)my.mysql_stmt_close(c->st[id]);
		c->st[id] = NULL;
	}
	st = my.mysql_stmt_init(c->m);
	if (!st)
		return -ENOMEM;
	if (my.mysql_stmt_prepare(st, sql, strlen(sql))) {
		int r = my_errno_to(my.mysql_stmt_errno(st), my.mysql_stmt_error(st), err, errlen);

		(void)my.mysql_stmt_close(st);
		return r;
	}
	c->st[id] = st;
	return 0;
}

static int my_execute(void *conn, unsigned id, const struct oltp_param *p, unsigned np, uint64_t *rows, char *err,
		      size_t errlen)
{
	struct my_conn *c = conn;
	MYSQL_STMT *st = c->st[id];
	MYSQL_BIND b[4];
	long long v[4];
	unsigned long len[4];

	if (np > 4)
		return -EINVAL;
	memset(b, 0, sizeof(b));
	for (unsigned i = 0; i < np; i++) {
		if (p[i].s) {
			len[i] = (unsigned long)strlen(p[i].s);
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = (void *)p[i].s;
			b[i].buffer_length = len[i];
			b[i].length = &len[i];
		} else {
			v[i] = p[i].i;
			b[i].buffer_type = MYSQL_TYPE_LONGLONG;
			b[i].buffer = &v[i];
		}
	}
	if (my.mysql_stmt_bind_param(st, b) || my.mysql_stmt_execute(st))
		return my_errno_to(my.mysql_stmt_errno(st), my.mysql_stmt_error(st), err, errlen);
	if (my.mysql_stmt_field_count(st)) { /* the rows travel to the client, as sysbench fetches them */
		if (my.mysql_stmt_store_result(st))
			return my_errno_to(my.mysql_stmt_errno(st), my.mysql_stmt_error(st), err, errlen);
		*rows = (uint64_t)my.mysql_stmt_num_rows(st);
		(void)my.mysql_stmt_free_result(st);
	} else {
		*rows = (uint64_t)my.mysql_stmt_affected_rows(st);
	}
	return 0;
}

const struct oltp_driver oltp_mysql_driver = {
	.name = "mysql",
	.scheme = "mysql://",
	.alias = "mariadb://",
	.begin_write = "BEGIN",
	.check_url = my_check_url,
	.connect = my_connect,
	.disconnect = my_disconnect,
	.exec = my_exec,
	.prepare = my_prepare,
	.execute = my_execute,
};
