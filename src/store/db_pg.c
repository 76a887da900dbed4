/* The result store in PostgreSQL (--db postgresql://...), through libpq
 * opened at run time: the SQLite store's tables (db.c) in a schema of
 * their own, vmbench, so that they sit beside a team's other tables. A run
 * is one transaction, as in SQLite: a process killed at any moment leaves
 * the whole run or none of it (the server rolls back what a lost
 * connection did not commit). Many writers at once: each run's number is
 * the sequence's, each run its own transaction; the schema is made under a
 * transaction-scoped advisory lock, so that of several processes using a new
 * database at once one makes it and the others find it made. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_pg.h"
#include "doc.h"
#include "../core/log.h"
#include "../core/pq.h"
#include "../core/util.h"
#include "../suites/app.h"
#include "../core/banned.h"

struct db_pg {
	const struct vmb_pq *pq;
	PGconn *c;
	char shown[1024]; /* the URL without its password: what messages say */
	bool empty;       /* opened read-only on a database without the schema: a store with no runs */
};

/* DB_APPLICATION_ID, as SQLite's header has it: the schema's owner */
#define PG_LOCK_KEY "1447904817"

static const char schema_sql[] =
	"CREATE SCHEMA IF NOT EXISTS vmbench;"
	"CREATE TABLE IF NOT EXISTS vmbench.meta (key text PRIMARY KEY, value text NOT NULL);"
	"CREATE TABLE IF NOT EXISTS vmbench.runs ("
	"  id bigserial PRIMARY KEY,"
	"  uuid text NOT NULL UNIQUE,"
	"  started text NOT NULL,"
	"  ended text NOT NULL,"
	"  host text,"
	"  hypervisor text,"
	"  suites text NOT NULL,"
	"  doc text NOT NULL,"
	/* what SQLite's listing reads from the document with its JSON
	 * functions, kept as columns at insert: the document was validated */
	"  interrupted boolean NOT NULL,"
	"  lab_failure boolean NOT NULL);"
	"CREATE TABLE IF NOT EXISTS vmbench.labels ("
	"  run_id bigint NOT NULL REFERENCES vmbench.runs(id) ON DELETE CASCADE,"
	"  key text NOT NULL,"
	"  value text NOT NULL,"
	"  PRIMARY KEY (run_id, key));"
	"CREATE INDEX IF NOT EXISTS labels_kv ON vmbench.labels(key, value);"
	"CREATE TABLE IF NOT EXISTS vmbench.metrics ("
	"  run_id bigint NOT NULL REFERENCES vmbench.runs(id) ON DELETE CASCADE,"
	"  suite text NOT NULL, test text NOT NULL, params text NOT NULL,"
	"  metric text NOT NULL, unit text NOT NULL, direction text NOT NULL,"
	"  n bigint NOT NULL, mean double precision, median double precision, stddev double precision,"
	"  ci95_low double precision, ci95_high double precision);"
	"CREATE INDEX IF NOT EXISTS metrics_run ON vmbench.metrics(run_id);";

/* A failed statement: said with the store's URL, res cleared. */
static int pg_fail(struct db_pg *db, PGresult *res, const char *what)
{
	char msg[1024];
	int r = db->pq->PQstatus(db->c) == CONNECTION_BAD ? -ECONNRESET : -EIO;

	vmb_pq_message(db->pq, db->c, res, msg, sizeof(msg));
	log_error("%s: %s: %s", db->shown, what, msg);
	db->pq->PQclear(res);
	return r;
}

/* One statement with text parameters: its result (the caller clears it),
 * or NULL after the error was said. */
static PGresult *pg_exec(struct db_pg *db, const char *sql, int n, const char *const *params, const char *what)
{
	/* without parameters, several statements in one (the schema's) */
	PGresult *res = n ? db->pq->PQexecParams(db->c, sql, n, NULL, params, NULL, NULL, 0) : db->pq->PQexec(db->c, sql);
	ExecStatusType s = res ? db->pq->PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return res;
	(void)pg_fail(db, res, what);
	return NULL;
}

static int pg_do(struct db_pg *db, const char *sql, const char *what)
{
	PGresult *res = pg_exec(db, sql, 0, NULL, what);

	if (!res)
		return db->pq->PQstatus(db->c) == CONNECTION_BAD ? -ECONNRESET : -EIO;
	db->pq->PQclear(res);
	return 0;
}

static void pg_rollback(struct db_pg *db)
{
	PGresult *res = db->pq->PQexec(db->c, "ROLLBACK");

	db->pq->PQclear(res);
}

/* The schema's version, 0 when the database has none of it (neither the
 * table meta nor runs: a new database, or a schema vmbench made empty by
 * its owner), or a negative errno after saying why: tables without a
 * version are a damaged store, as SQLite's file without one is (db.c),
 * never taken for an empty one. to_regclass: no error, so that this runs
 * inside the transaction that makes the schema. */
static int pg_version(struct db_pg *db, long *ver)
{
	PGresult *res = pg_exec(db, "SELECT to_regclass('vmbench.meta') IS NOT NULL, "
				    "to_regclass('vmbench.runs') IS NOT NULL", 0, NULL, "reading the store's version");
	bool meta, runs;
	char *end;

	*ver = 0;
	if (!res)
		return db->pq->PQstatus(db->c) == CONNECTION_BAD ? -ECONNRESET : -EIO;
	meta = !strcmp(db->pq->PQgetvalue(res, 0, 0), "t");
	runs = !strcmp(db->pq->PQgetvalue(res, 0, 1), "t");
	db->pq->PQclear(res);
	if (!meta && !runs)
		return 0;
	if (meta) {
		res = pg_exec(db, "SELECT value FROM vmbench.meta WHERE key = 'schema_version'", 0, NULL,
			      "reading the store's version");
		if (!res)
			return db->pq->PQstatus(db->c) == CONNECTION_BAD ? -ECONNRESET : -EIO;
		if (db->pq->PQntuples(res) == 1) {
			*ver = strtol(db->pq->PQgetvalue(res, 0, 0), &end, 10);
			if (*end || *ver < 1) {
				log_error("%s: the vmbench schema has no valid version ('%s'); it is damaged", db->shown,
					  db->pq->PQgetvalue(res, 0, 0));
				db->pq->PQclear(res);
				return -EBADMSG;
			}
		}
		db->pq->PQclear(res);
	}
	if (*ver == 0) {
		log_error("%s: the vmbench schema has %s but no version; it is damaged or not a vmbench store", db->shown,
			  meta ? "a table meta" : "a table runs");
		return -EBADMSG;
	}
	return 0;
}

static int pg_init_or_check(struct db_pg *db, bool create)
{
	char sql[sizeof(schema_sql) + 256];
	long ver = 0;
	int r;

	if (!create) {
		r = pg_version(db, &ver);
		db->empty = r == 0 && ver == 0;
	} else {
		/* checked under the lock before anything is made: a damaged
		 * schema is said, not made whole over what is left of it */
		r = pg_do(db, "BEGIN; SELECT pg_advisory_xact_lock(" PG_LOCK_KEY ")", "locking the store");
		if (r == 0)
			r = pg_version(db, &ver);
		if (r == 0 && ver == 0) {
			snprintf(sql, sizeof(sql), "%s INSERT INTO vmbench.meta VALUES ('application_id', '" PG_LOCK_KEY
				 "'), ('schema_version', '%d') ON CONFLICT (key) DO NOTHING;", schema_sql,
				 DB_SCHEMA_VERSION);
			r = pg_do(db, sql, "creating the store");
			if (r == 0)
				r = pg_version(db, &ver);
		}
		if (r == 0)
			r = pg_do(db, "COMMIT", "creating the store");
		if (r < 0)
			pg_rollback(db);
	}
	if (r == 0 && ver > DB_SCHEMA_VERSION) {
		log_error("%s: store schema version %ld is newer than this vmbench reads (%d); upgrade vmbench",
			  db->shown, ver, DB_SCHEMA_VERSION);
		return -EPROTO;
	}
	return r;
}

/* libpq's notices (a schema or table that exists already) are not the
 * user's business */
static void pg_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

int db_pg_open(const char *url, const char *shown, bool create, struct db_pg **out)
{
	char err[512];
	struct db_pg *db = calloc(1, sizeof(*db));
	int r;

	if (!db)
		return -ENOMEM;
	snprintf(db->shown, sizeof(db->shown), "%s", shown);
	db->pq = vmb_pq_load(err, sizeof(err));
	if (!db->pq) {
		log_error("%s: a PostgreSQL store needs %s", shown, err);
		free(db);
		return -EOPNOTSUPP;
	}
	db->c = db->pq->PQconnectdb(url);
	if (!db->c) {
		free(db);
		return -ENOMEM;
	}
	if (db->pq->PQstatus(db->c) != CONNECTION_OK) {
		vmb_pq_message(db->pq, db->c, NULL, err, sizeof(err));
		app_url_scrub(url, err, sizeof(err)); /* libpq may quote a malformed password */
		log_error("%s: connecting to the store: %s", shown, err);
		db_pg_close(db);
		return -ECONNREFUSED;
	}
	(void)db->pq->PQsetNoticeProcessor(db->c, pg_quiet, NULL);
	r = pg_do(db, "SET client_encoding TO 'UTF8'", "setting the client's encoding");
	if (r == 0)
		r = pg_init_or_check(db, create);
	if (r < 0) {
		db_pg_close(db);
		return r;
	}
	*out = db;
	return 0;
}

void db_pg_close(struct db_pg *db)
{
	if (!db)
		return;
	db->pq->PQfinish(db->c);
	free(db);
}

bool db_pg_empty(const struct db_pg *db)
{
	return db->empty;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Every metric of the document as a JSON array of rows, in the column
 * order of vmbench.metrics after run_id: one statement stores them all. */
static char *metric_rows(const json_t *doc)
{
	json_t *rows = json_array(), *s, *t, *c, *m;
	size_t i, j, k, l;
	char *text = NULL;

	if (!rows)
		return NULL;
	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c) {
				char *params = json_dumps(json_object_get(c, "params"), JSON_SORT_KEYS | JSON_COMPACT);

				if (!params)
					goto out;
				json_array_foreach(json_object_get(c, "metrics"), l, m) {
					const json_t *sum = json_object_get(m, "summary");

					if (json_array_append_new(rows, json_pack("[ssssssIfffff]", jstr(s, "name"),
						jstr(t, "name"), params, jstr(m, "name"), jstr(m, "unit"),
						jstr(m, "direction"),
						(json_int_t)json_integer_value(json_object_get(sum, "n")),
						json_number_value(json_object_get(sum, "mean")),
						json_number_value(json_object_get(sum, "median")),
						json_number_value(json_object_get(sum, "stddev")),
						json_number_value(json_object_get(sum, "ci95_low")),
						json_number_value(json_object_get(sum, "ci95_high")))) < 0) {
						free(params);
						goto out;
					}
				}
				free(params);
			}
	text = json_dumps(rows, JSON_COMPACT | JSON_REAL_PRECISION(17));
out:
	json_decref(rows);
	return text;
}

int db_pg_add(struct db_pg *db, const json_t *doc, const char *text, const char *suites, int64_t *id)
{
	const json_t *fp = json_object_get(doc, "fingerprint");
	const char *status = json_string_value(json_object_get(doc, "status"));
	const json_t *lab = json_object_get(doc, "labels");
	char *labels = lab ? json_dumps(lab, JSON_COMPACT) : xstrdup("{}");
	char *metrics = metric_rows(doc), run_id[32];
	PGresult *res = NULL;
	int r = -ENOMEM;

	if (!labels || !metrics)
		goto out;
	r = pg_do(db, "BEGIN", "starting a transaction");
	if (r < 0)
		goto out;
	vmb_test_stop_point("store-begin");
	{
		const char *p[] = { jstr(doc, "id"), jstr(doc, "started"), jstr(doc, "ended"), jstr(fp, "hostname"),
				    jstr(json_object_get(fp, "hypervisor"), "name"), suites, text,
				    status && !strcmp(status, "interrupted") ? "true" : "false",
				    json_object_get(doc, "lab_failure") ? "true" : "false" };

		res = pg_exec(db, "INSERT INTO vmbench.runs (uuid, started, ended, host, hypervisor, suites, doc, "
				  "interrupted, lab_failure) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
			      9, p, "storing the run");
	}
	if (!res) {
		r = -EIO;
		goto rollback;
	}
	snprintf(run_id, sizeof(run_id), "%s", db->pq->PQgetvalue(res, 0, 0));
	db->pq->PQclear(res);
	vmb_test_stop_point("store-run-row");
	{
		const char *p[] = { run_id, labels };

		res = pg_exec(db, "INSERT INTO vmbench.labels (run_id, key, value) SELECT $1::bigint, key, value FROM "
				  "json_each_text($2::json)", 2, p, "storing labels");
	}
	if (!res) {
		r = -EIO;
		goto rollback;
	}
	db->pq->PQclear(res);
	{
		const char *p[] = { run_id, metrics };

		res = pg_exec(db, "INSERT INTO vmbench.metrics SELECT $1::bigint, x->>0, x->>1, x->>2, x->>3, x->>4, x->>5, "
				  "(x->>6)::bigint, (x->>7)::float8, (x->>8)::float8, (x->>9)::float8, (x->>10)::float8, "
				  "(x->>11)::float8 FROM json_array_elements($2::json) x", 2, p, "storing metrics");
	}
	if (!res) {
		r = -EIO;
		goto rollback;
	}
	db->pq->PQclear(res);
	vmb_test_stop_point("store-commit");
	r = pg_do(db, "COMMIT", "committing the run");
	if (r < 0)
		goto rollback;
	if (parse_i64(run_id, 1, INT64_MAX, id) < 0) {
		log_error("%s: the server gave run number '%s'", db->shown, run_id);
		r = -EIO;
	}
	goto out;
rollback:
	pg_rollback(db);
out:
	free(labels);
	free(metrics);
	return r;
}

int db_pg_get_text(struct db_pg *db, const char *ref, bool by_id, char **text)
{
	int64_t n = 0;
	const char *p[] = { ref };
	PGresult *res;

	if (db->empty || (by_id && parse_i64(ref, 1, INT64_MAX, &n) < 0))
		return -ENOENT;
	res = pg_exec(db, by_id ? "SELECT doc FROM vmbench.runs WHERE id = $1::bigint"
				: "SELECT doc FROM vmbench.runs WHERE left(uuid, length($1)) = $1 LIMIT 2",
		      1, p, "reading a run");
	if (!res)
		return -EIO;
	if (db->pq->PQntuples(res) == 0) {
		db->pq->PQclear(res);
		return -ENOENT;
	}
	if (!by_id && db->pq->PQntuples(res) > 1) {
		db->pq->PQclear(res);
		log_error("run id prefix '%s' is ambiguous; give more characters or the run number", ref);
		return -EINVAL;
	}
	*text = xstrdup(db->pq->PQgetvalue(res, 0, 0));
	db->pq->PQclear(res);
	return *text ? 0 : -ENOMEM;
}

int db_pg_has_uuid(struct db_pg *db, const char *uuid)
{
	const char *p[] = { uuid };
	PGresult *res;
	int n;

	if (db->empty)
		return 0;
	res = pg_exec(db, "SELECT 1 FROM vmbench.runs WHERE uuid = $1", 1, p, "looking for a run");
	if (!res)
		return -EIO;
	n = db->pq->PQntuples(res);
	db->pq->PQclear(res);
	return n > 0;
}

static const char *col(struct db_pg *db, PGresult *res, int row, int c)
{
	return db->pq->PQgetisnull(res, row, c) ? NULL : db->pq->PQgetvalue(res, row, c);
}

int db_pg_list(struct db_pg *db, const char *pairs, size_t npairs, int (*fn)(const struct db_row *, void *),
	       void *arg)
{
	char n[32];
	const char *p[] = { pairs, n };
	PGresult *res;
	int r = 0;

	if (db->empty)
		return 0;
	snprintf(n, sizeof(n), "%zu", npairs);
	/* as SQLite's listing (db.c): the labels in byte order of their keys
	 * (COLLATE "C", SQLite's BINARY), "{}" for a run without any */
	res = pg_exec(db,
		      "WITH sel AS (SELECT * FROM vmbench.runs r WHERE $2::bigint = 0 OR r.id IN "
		      "  (SELECT l.run_id FROM vmbench.labels l JOIN json_array_elements($1::json) f "
		      "     ON l.key = f->>0 AND l.value = f->>1 GROUP BY l.run_id HAVING count(*) = $2::bigint)) "
		      "SELECT s.id, s.uuid, s.started, s.host, s.hypervisor, "
		      "string_agg(l.key || '=' || l.value, ' ' ORDER BY l.key COLLATE \"C\"), s.suites, "
		      "coalesce((json_object_agg(l.key, l.value ORDER BY l.key COLLATE \"C\") "
		      "  FILTER (WHERE l.key IS NOT NULL))::text, '{}'), s.interrupted, s.lab_failure "
		      "FROM sel s LEFT JOIN vmbench.labels l ON l.run_id = s.id "
		      "GROUP BY s.id, s.uuid, s.started, s.host, s.hypervisor, s.suites, s.interrupted, s.lab_failure "
		      "ORDER BY s.id",
		      2, p, "listing runs");
	if (!res)
		return -EIO;
	for (int i = 0; i < db->pq->PQntuples(res) && r == 0; i++) {
		struct db_row row = {
			.uuid = col(db, res, i, 1),
			.started = col(db, res, i, 2),
			.host = col(db, res, i, 3),
			.hypervisor = col(db, res, i, 4),
			.labels = col(db, res, i, 5),
			.suites = col(db, res, i, 6),
			.labels_json = col(db, res, i, 7),
			.interrupted = !strcmp(db->pq->PQgetvalue(res, i, 8), "t"),
			.lab_failure = !strcmp(db->pq->PQgetvalue(res, i, 9), "t"),
		};

		if (parse_i64(db->pq->PQgetvalue(res, i, 0), 1, INT64_MAX, &row.id) < 0) {
			log_error("%s: the server listed run number '%s'", db->shown, db->pq->PQgetvalue(res, i, 0));
			r = -EIO;
			break;
		}
		r = fn(&row, arg);
	}
	db->pq->PQclear(res);
	return r;
}
