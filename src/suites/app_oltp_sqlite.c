/* The embedded OLTP back end: SQLite in WAL mode, one connection per
 * thread, --app.sync normal or full. A writer waits for the lock up to 10 s
 * (busy timeout); what still fails with SQLITE_BUSY is retried. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_oltp.h"
#include "../core/banned.h"

struct sq_conn {
	sqlite3 *db;
	sqlite3_stmt **st;
	unsigned nst;
};

static int sq_err(struct sq_conn *c, int rc, char *err, size_t errlen)
{
	int ext = sqlite3_extended_errcode(c->db);

	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || (ext & 0xff) == SQLITE_BUSY)
		return OLTP_RETRY;
	snprintf(err, errlen, "%s", sqlite3_errmsg(c->db));
	return rc == SQLITE_NOMEM ? -ENOMEM : rc == SQLITE_FULL ? -ENOSPC : -EIO;
}

static int sq_exec(void *conn, const char *sql, char *err, size_t errlen)
{
	struct sq_conn *c = conn;
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sq_err(c, rc, err, errlen);
}

static void sq_disconnect(void *conn)
{
	struct sq_conn *c = conn;

	if (!c)
		return;
	for (unsigned i = 0; i < c->nst; i++)
		(void)sqlite3_finalize(c->st[i]);
	free(c->st);
	(void)sqlite3_close(c->db);
	free(c);
}

static int sq_connect(const struct oltp_conf *conf, void **conn, char *err, size_t errlen)
{
	struct sq_conn *c = calloc(1, sizeof(*c));
	char pragma[64];
	int r;

	if (!c)
		return -ENOMEM;
	if (sqlite3_open_v2(conf->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", c->db ? sqlite3_errmsg(c->db) : "out of memory");
		sq_disconnect(c);
		return -EIO;
	}
	(void)sqlite3_busy_timeout(c->db, 10000);
	snprintf(pragma, sizeof(pragma), "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s",
		 conf->sync_full ? "FULL" : "NORMAL");
	r = sq_exec(c, pragma, err, errlen);
	if (r != 0) {
		if (r == OLTP_RETRY)
			snprintf(err, errlen, "the database stayed locked for 10 s");
		sq_disconnect(c);
		return r < 0 ? r : -EBUSY;
	}
	*conn = c;
	return 0;
}

static int sq_prepare(void *conn, unsigned id, const char *sql, unsigned nparams, char *err, size_t errlen)
{
	struct sq_conn *c = conn;

	(void)nparams;
	if (id >= c->nst) {
		sqlite3_stmt **st = realloc(c->st, (id + 1) * sizeof(*st));

		if (!st)
			return -ENOMEM;
		memset(st + c->nst, 0, (id + 1 - c->nst) * sizeof(*st));
		c->st = st;
		c->nst = id + 1;
	}
	if (c->st[id])
		(void)sqlite3_finalize(c->st[id]);
	c->st[id] = NULL;
	if (sqlite3_prepare_v2(c->db, sql, -1, &c->st[id], NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", sql, sqlite3_errmsg(c->db));
		return -EINVAL;
	}
	return 0;
}

static int sq_execute(void *conn, unsigned id, const struct oltp_param *p, unsigned np, uint64_t *rows, char *err,
		      size_t errlen)
{
	struct sq_conn *c = conn;
	sqlite3_stmt *st = c->st[id];
	uint64_t n = 0;
	int rc;

	for (unsigned i = 0; i < np; i++)
		rc = p[i].s ? sqlite3_bind_text(st, (int)i + 1, p[i].s, -1, SQLITE_STATIC)
			    : sqlite3_bind_int64(st, (int)i + 1, p[i].i);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n++;
	(void)sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sq_err(c, rc, err, errlen);
	*rows = sqlite3_column_count(st) ? n : (uint64_t)sqlite3_changes(c->db);
	return 0;
}

const struct oltp_driver oltp_sqlite_driver = {
	.name = "sqlite",
	.scheme = "sqlite",
	/* A deferred BEGIN that later writes fails at once with SQLITE_BUSY
	 * when another writer got there first; IMMEDIATE waits its turn. */
	.begin_write = "BEGIN IMMEDIATE",
	.connect = sq_connect,
	.disconnect = sq_disconnect,
	.exec = sq_exec,
	.prepare = sq_prepare,
	.execute = sq_execute,
};
