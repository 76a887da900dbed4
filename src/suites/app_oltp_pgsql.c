/* The PostgreSQL OLTP back end, through libpq: server-side prepared
 * statements with text parameters, as sysbench's pgsql driver uses them.
 * Serialization failures, deadlocks and the duplicate key a concurrent
 * delete+insert of the same id can raise are sysbench's ignorable errors. */
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_oltp.h"
#include "../core/pq.h"
#include "../core/str.h"
#include "../core/banned.h"

/* the client library, opened at run time (src/core/pq.h): every call
 * below follows a pq_load that succeeded */
#define pq vmb_pq_loaded()

static int pq_load(char *err, size_t errlen)
{
	return vmb_pq_load(err, errlen) ? 0 : -EOPNOTSUPP;
}

static void pg_msg(PGconn *c, const PGresult *res, char *err, size_t errlen)
{
	vmb_pq_message(pq, c, res, err, errlen);
}

/* 0, OLTP_RETRY or a negative errno; clears res */
static int pg_result(PGconn *c, PGresult *res, char *err, size_t errlen)
{
	static const char *const retry[] = { "40001", "40P01", "23505" };
	ExecStatusType s = pq->PQresultStatus(res);
	const char *state;
	int r = 0;

	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		state = res ? pq->PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
		r = pq->PQstatus(c) == CONNECTION_BAD ? -ECONNRESET : -EIO;
		for (size_t i = 0; r == -EIO && state && i < sizeof(retry) / sizeof(retry[0]); i++)
			if (!strcmp(state, retry[i]))
				r = OLTP_RETRY;
		pg_msg(c, res, err, errlen);
	}
	pq->PQclear(res);
	return r;
}

static int pg_check_url(const char *url, char *err, size_t errlen)
{
	(void)url; /* libpq parses it, and says what is wrong when it connects */
	return pq_load(err, errlen);
}

static int pg_connect(const struct oltp_conf *conf, void **conn, char *err, size_t errlen)
{
	PGconn *c;
	int r = pq_load(err, errlen);

	if (r < 0)
		return r;
	c = pq->PQconnectdb(conf->url);
	if (!c)
		return -ENOMEM;
	if (pq->PQstatus(c) != CONNECTION_OK) {
		pg_msg(c, NULL, err, errlen);
		app_url_scrub(conf->url, err, errlen); /* libpq may quote a malformed password */
		pq->PQfinish(c);
		return -ECONNREFUSED;
	}
	*conn = c;
	return 0;
}

static void pg_disconnect(void *conn)
{
	pq->PQfinish(conn);
}

static int pg_exec(void *conn, const char *sql, char *err, size_t errlen)
{
	return pg_result(conn, pq->PQexec(conn, sql), err, errlen);
}

static int pg_prepare(void *conn, unsigned id, const char *sql, unsigned nparams, char *err, size_t errlen)
{
	char name[32], text[512];
	const char *p = sql;
	unsigned n = 0;
	size_t o = 0;

	/* The statements mark their parameters with '?' (SQLite's and MariaDB's
	 * syntax); libpq numbers them: $1, $2, ... A statement that does not
	 * fit is an error, never a truncated statement sent to the server. */
	for (; *p && o + 8 < sizeof(text); p++)
		if (*p == '?')
			str_appendf(text, sizeof(text), &o, "$%u", ++n);
		else
			text[o++] = *p;
	text[o] = '\0';
	if (*p) {
		snprintf(err, errlen, "statement %u is longer than %zu bytes", id, sizeof(text) - 8);
		return -ENAMETOOLONG;
	}
	snprintf(name, sizeof(name), "s%u", id);
	return pg_result(conn, pq->PQprepare(conn, name, text, (int)nparams, NULL), err, errlen);
}

static int pg_execute(void *conn, unsigned id, const struct oltp_param *p, unsigned np, uint64_t *rows, char *err,
		      size_t errlen)
{
	char name[32], nums[4][24];
	const char *values[4];
	PGresult *res;

	if (np > 4)
		return -EINVAL;
	for (unsigned i = 0; i < np; i++) {
		if (p[i].s) {
			values[i] = p[i].s;
		} else {
			snprintf(nums[i], sizeof(nums[i]), "%lld", (long long)p[i].i);
			values[i] = nums[i];
		}
	}
	snprintf(name, sizeof(name), "s%u", id);
	res = pq->PQexecPrepared(conn, name, (int)np, values, NULL, NULL, 0);
	if (pq->PQresultStatus(res) == PGRES_TUPLES_OK)
		*rows = (uint64_t)pq->PQntuples(res);
	else if (pq->PQresultStatus(res) == PGRES_COMMAND_OK)
		*rows = strtoull(pq->PQcmdTuples(res), NULL, 10);
	return pg_result(conn, res, err, errlen);
}

const struct oltp_driver oltp_pgsql_driver = {
	.name = "postgresql",
	.scheme = "postgresql://",
	.alias = "postgres://",
	.prepare_is_txn = true,
	.begin_write = "BEGIN",
	.check_url = pg_check_url,
	.connect = pg_connect,
	.disconnect = pg_disconnect,
	.exec = pg_exec,
	.prepare = pg_prepare,
	.execute = pg_execute,
};
