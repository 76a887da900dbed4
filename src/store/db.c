/* SQLite store. A run is one transaction: a process killed at any moment
 * leaves either the whole run or none of it (SQLite's rollback journal). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "label.h"
#include "doc.h"
#ifdef HAVE_LIBPQ
#include "db_pg.h"
#endif
#include "../core/log.h"
#include "../core/sys.h"
#include "../suites/app.h"
#include "../core/banned.h"

struct db {
	sqlite3 *h;
	char *path; /* a file's path, or a URL without its password: what messages name */
	bool empty; /* opened read-only on an empty database: a store with no runs */
#ifdef HAVE_LIBPQ
	struct db_pg *pg; /* a PostgreSQL store (db_pg.c); then h is NULL */
#endif
};

bool db_is_postgres(const char *path)
{
	return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11);
}

/* IF NOT EXISTS: a process that lost the race to create the store (it waits
 * in BEGIN IMMEDIATE) finds the tables there and creates nothing. */
static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  uuid TEXT NOT NULL UNIQUE,"
	"  started TEXT NOT NULL,"
	"  ended TEXT NOT NULL,"
	"  host TEXT,"
	"  hypervisor TEXT,"
	"  suites TEXT NOT NULL,"
	"  doc TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS labels ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, key));"
	"CREATE INDEX IF NOT EXISTS labels_kv ON labels(key, value);"
	"CREATE TABLE IF NOT EXISTS metrics ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  suite TEXT NOT NULL, test TEXT NOT NULL, params TEXT NOT NULL,"
	"  metric TEXT NOT NULL, unit TEXT NOT NULL, direction TEXT NOT NULL,"
	"  n INTEGER NOT NULL, mean REAL, median REAL, stddev REAL, ci95_low REAL, ci95_high REAL);"
	"CREATE INDEX IF NOT EXISTS metrics_run ON metrics(run_id);";

int db_default_path(const char *explicit_path, char *buf, size_t len)
{
	const char *env = getenv("VMBENCH_DB"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (explicit_path && !*explicit_path)
		return -EINVAL; /* --db '' is a mistake, not "the default" */
	if (explicit_path)
		n = snprintf(buf, len, "%s", explicit_path);
	else if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/vmbench/results.db", xdg);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.local/share/vmbench/results.db", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int mkdir_parents(const char *path)
{
	char *copy = xstrdup(path), *p;
	struct stat st;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		/* an existing file where a directory should be */
		if (stat(copy, &st) < 0 || !S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			break;
		}
		*p = '/';
	}
	free(copy);
	return r;
}

static int db_err(struct db *db, const char *what)
{
	int code = sqlite3_errcode(db->h);

	if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
		log_error("%s: not a usable SQLite database (%s); move it away or pass another --db",
			  db->path, sqlite3_errmsg(db->h));
		return -EBADMSG;
	}
	if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) {
		log_error("%s: %s: the store cannot be written here (%s); check the permissions of the file and "
			  "its directory, or pass another --db", db->path, what, sqlite3_errmsg(db->h));
		return -EACCES;
	}
	log_error("%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
	return -EIO;
}

static int pragma_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(db, "reading the store's header");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_err(db, "reading the store's header");
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* What the file holds: a vmbench store (0), or nothing at all (*fresh:
 * a new or 0-byte file is an empty SQLite database), or something else
 * (an error, after a message naming the file). */
static int db_check(struct db *db, bool *fresh)
{
	int64_t app = 0, ver = 0, ntables = 0; /* gcc -O3 for aarch64 cannot see pragma_int sets them */
	int r;

	r = pragma_int(db, "PRAGMA application_id", &app);
	if (r < 0)
		return r;
	r = pragma_int(db, "PRAGMA user_version", &ver);
	if (r < 0)
		return r;
	r = pragma_int(db, "SELECT count(*) FROM sqlite_master", &ntables);
	if (r < 0)
		return r;
	*fresh = app == 0 && ver == 0 && ntables == 0;
	if (*fresh)
		return 0;
	if (app != DB_APPLICATION_ID) {
		log_error("%s: an SQLite database of another program, not a vmbench store; pass another --db", db->path);
		return -EBADMSG;
	}
	if (ver > DB_SCHEMA_VERSION) {
		log_error("%s: store schema version %lld is newer than this vmbench reads (%d); upgrade vmbench",
			  db->path, (long long)ver, DB_SCHEMA_VERSION);
		return -EPROTO;
	}
	if (ver < 1) {
		log_error("%s: store has no schema version; it is damaged or not a vmbench store", db->path);
		return -EBADMSG;
	}
	return 0;
}

/* Check the store and, when it is fresh and `create`, make its schema.
 * Both happen under one write lock (BEGIN IMMEDIATE waits, within the busy
 * timeout, for another writer): of several processes using a new store for
 * the first time at once, one creates it and the others find it made. */
static int db_init_or_check(struct db *db, bool create)
{
	char sql[sizeof(schema_sql) + 100];
	bool fresh = false;
	char *msg = NULL;
	int r;

	if (!create) {
		r = db_check(db, &fresh);
		/* opened read-only, a fresh file stays as it is: a store with no runs */
		db->empty = r == 0 && fresh;
		return r;
	}
	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_err(db, "locking the store");
	r = db_check(db, &fresh);
	if (r == 0 && fresh) {
		snprintf(sql, sizeof(sql), "%s PRAGMA application_id = %d; PRAGMA user_version = %d;", schema_sql,
			 DB_APPLICATION_ID, DB_SCHEMA_VERSION);
		if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
			r = db_err(db, "creating the store");
			sqlite3_free(msg);
		}
	}
	if (r == 0 && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = db_err(db, fresh ? "creating the store" : "reading the store's header");
	if (r < 0)
		(void)sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

/* A path the user named that cannot be a store is their mistake (-EINVAL,
 * after a message saying what would do). */
static int check_path(const char *path, bool create)
{
	struct stat st;
	size_t len = strlen(path);
	int r;

	if (len == 0) {
		log_error("the store path is empty; pass the path of a file with --db (e.g. --db ~/results.db) "
			  "or leave --db out for the default store");
		return -EINVAL;
	}
	if (path[len - 1] == '/') {
		log_error("%s: names a directory; pass the path of a file with --db (e.g. --db %sresults.db)", path,
			  path);
		return -EINVAL;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			log_error("%s: not a regular file; pass a file path with --db", path);
			return -EINVAL;
		}
		return 0;
	}
	if (errno != ENOENT) {
		r = -errno;
		log_error("%s: %s; pass a usable file path with --db", path, strerror(-r));
		return -EINVAL;
	}
	if (!create)
		return -ENOENT;
	r = mkdir_parents(path);
	if (r == -ENOTDIR || r == -EACCES || r == -EROFS || r == -EPERM) {
		log_error("%s: cannot create its directory: %s; pass a file path in a directory you can write with --db",
			  path, strerror(-r));
		return -EINVAL;
	}
	if (r < 0)
		return log_errno(r, "creating the directory of '%s'", path);
	return 0;
}

/* A postgresql:// store: through libpq, loaded at run time */
static int open_postgres(const char *url, bool create, struct db **out)
{
	char *shown = malloc(APP_URL_SHOWN_LEN(url));
	struct db *db;
	int r;

	if (!shown)
		return -ENOMEM;
	app_oltp_url_shown(url, shown, APP_URL_SHOWN_LEN(url));
	if (vmb_static_build) {
		log_error("%s: a PostgreSQL store needs libpq, which a static vmbench cannot load (a client loaded at "
			  "run time): use a vmbench built with shared libraries (make), or a file with --db", shown);
		free(shown);
		return -EOPNOTSUPP;
	}
#ifndef HAVE_LIBPQ
	(void)create;
	(void)out;
	(void)db;
	(void)r;
	log_error("%s: a PostgreSQL store needs libpq, which this vmbench was built without (Debian: libpq-dev, "
		  "then build again)", shown);
	free(shown);
	return -EOPNOTSUPP;
#else
	db = calloc(1, sizeof(*db));
	if (!db) {
		free(shown);
		return -ENOMEM;
	}
	db->path = shown;
	r = db_pg_open(url, shown, create, &db->pg);
	if (r < 0) {
		free(db->path);
		free(db);
		return r;
	}
	db->empty = db_pg_empty(db->pg);
	*out = db;
	return 0;
#endif
}

int db_open(const char *path, bool create, struct db **out)
{
	struct db *db;
	int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int r;

	if (db_is_postgres(path))
		return open_postgres(path, create, out);
	r = check_path(path, create);
	if (r < 0)
		return r;
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->path = xstrdup(path);
	if (!db->path) {
		free(db);
		return -ENOMEM;
	}
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		r = db->h ? db_err(db, "opening") : (log_error("%s: cannot open: out of memory", path), -ENOMEM);
		db_close(db);
		return r;
	}
	(void)sqlite3_busy_timeout(db->h, 10000);
	(void)sqlite3_exec(db->h, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", NULL, NULL, NULL);
	r = db_init_or_check(db, create);
	if (r < 0) {
		db_close(db);
		return r;
	}
	*out = db;
	return 0;
}

bool db_usage_error(int r)
{
	return r == -ENOENT || r == -EBADMSG || r == -EPROTO || r == -EINVAL || r == -EACCES || r == -EOPNOTSUPP;
}

void db_close(struct db *db)
{
	if (!db)
		return;
#ifdef HAVE_LIBPQ
	db_pg_close(db->pg);
#endif
	(void)sqlite3_close(db->h);
	free(db->path);
	free(db);
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double jnum(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static int insert_metrics(struct db *db, sqlite3_stmt *st, int64_t run_id, const json_t *doc)
{
	size_t i, j, k, l;
	json_t *s, *t, *c, *m;

	json_array_foreach(json_object_get(doc, "suites"), i, s)
		json_array_foreach(json_object_get(s, "tests"), j, t)
			json_array_foreach(json_object_get(t, "cases"), k, c) {
				char *params = json_dumps(json_object_get(c, "params"), JSON_SORT_KEYS | JSON_COMPACT);

				if (!params)
					return -ENOMEM;
				json_array_foreach(json_object_get(c, "metrics"), l, m) {
					const json_t *sum = json_object_get(m, "summary");

					sqlite3_reset(st);
					sqlite3_bind_int64(st, 1, run_id);
					sqlite3_bind_text(st, 2, jstr(s, "name"), -1, SQLITE_TRANSIENT);
					sqlite3_bind_text(st, 3, jstr(t, "name"), -1, SQLITE_TRANSIENT);
					sqlite3_bind_text(st, 4, params, -1, SQLITE_TRANSIENT);
					sqlite3_bind_text(st, 5, jstr(m, "name"), -1, SQLITE_TRANSIENT);
					sqlite3_bind_text(st, 6, jstr(m, "unit"), -1, SQLITE_TRANSIENT);
					sqlite3_bind_text(st, 7, jstr(m, "direction"), -1, SQLITE_TRANSIENT);
					sqlite3_bind_int64(st, 8, json_integer_value(json_object_get(sum, "n")));
					sqlite3_bind_double(st, 9, jnum(sum, "mean"));
					sqlite3_bind_double(st, 10, jnum(sum, "median"));
					sqlite3_bind_double(st, 11, jnum(sum, "stddev"));
					sqlite3_bind_double(st, 12, jnum(sum, "ci95_low"));
					sqlite3_bind_double(st, 13, jnum(sum, "ci95_high"));
					if (sqlite3_step(st) != SQLITE_DONE) {
						free(params);
						return db_err(db, "storing metrics");
					}
				}
				free(params);
			}
	return 0;
}

int db_add(struct db *db, const json_t *doc, int64_t *id)
{
	sqlite3_stmt *run = NULL, *lab = NULL, *met = NULL;
	const json_t *fp = json_object_get(doc, "fingerprint");
	char suites[512];
	const char *k;
	json_t *v;
	char *text;
	int64_t run_id;
	int r = 0;

	text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (!text)
		return -ENOMEM;
	doc_suites_string(doc, suites, sizeof(suites));
#ifdef HAVE_LIBPQ
	if (db->pg) {
		r = db_pg_add(db->pg, doc, text, suites, id);
		free(text);
		return r;
	}
#endif
	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		free(text);
		return db_err(db, "starting a transaction");
	}
	vmb_test_stop_point("store-begin");
	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO runs (uuid, started, ended, host, hypervisor, suites, doc) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &run, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?)", -1, &lab,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1,
			       &met, NULL) != SQLITE_OK) {
		r = db_err(db, "preparing statements");
		goto rollback;
	}
	sqlite3_bind_text(run, 1, jstr(doc, "id"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 2, jstr(doc, "started"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 3, jstr(doc, "ended"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 4, jstr(fp, "hostname"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 5, jstr(json_object_get(fp, "hypervisor"), "name"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 6, suites, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 7, text, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(run) != SQLITE_DONE) {
		r = db_err(db, "storing the run");
		goto rollback;
	}
	run_id = sqlite3_last_insert_rowid(db->h);
	vmb_test_stop_point("store-run-row");
	json_object_foreach(json_object_get(doc, "labels"), k, v) {
		sqlite3_reset(lab);
		sqlite3_bind_int64(lab, 1, run_id);
		sqlite3_bind_text(lab, 2, k, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(lab, 3, json_string_value(v), -1, SQLITE_TRANSIENT);
		if (sqlite3_step(lab) != SQLITE_DONE) {
			r = db_err(db, "storing labels");
			goto rollback;
		}
	}
	r = insert_metrics(db, met, run_id, doc);
	if (r < 0)
		goto rollback;
	vmb_test_stop_point("store-commit");
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		r = db_err(db, "committing the run");
		goto rollback;
	}
	*id = run_id;
	goto out;
rollback:
	(void)sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(run);
	sqlite3_finalize(lab);
	sqlite3_finalize(met);
	free(text);
	return r;
}

/* The document text of one run: by number when by_id, else by id prefix. */
static int db_get_text(struct db *db, const char *ref, bool by_id, char **text)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	int rc;

#ifdef HAVE_LIBPQ
	if (db->pg)
		return db_pg_get_text(db->pg, ref, by_id, text);
#endif
	if (by_id && parse_i64(ref, 1, INT64_MAX, &id) < 0)
		return -ENOENT;
	rc = sqlite3_prepare_v2(db->h,
				by_id ? "SELECT doc FROM runs WHERE id = ?"
				      : "SELECT doc FROM runs WHERE substr(uuid, 1, length(?1)) = ?1 LIMIT 2",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_err(db, "reading a run");
	if (by_id)
		sqlite3_bind_int64(st, 1, id);
	else
		sqlite3_bind_text(st, 1, ref, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? -ENOENT : db_err(db, "reading a run");
	}
	*text = xstrdup((const char *)sqlite3_column_text(st, 0));
	if (!by_id && sqlite3_step(st) == SQLITE_ROW) {
		free(*text);
		sqlite3_finalize(st);
		log_error("run id prefix '%s' is ambiguous; give more characters or the run number", ref);
		return -EINVAL;
	}
	sqlite3_finalize(st);
	return *text ? 0 : -ENOMEM;
}

int db_has_uuid(struct db *db, const char *uuid)
{
	sqlite3_stmt *st;
	int rc;

	if (db->empty)
		return 0;
#ifdef HAVE_LIBPQ
	if (db->pg)
		return db_pg_has_uuid(db->pg, uuid);
#endif
	/* the whole uuid: the UNIQUE column's index (a prefix scans every run) */
	if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM runs WHERE uuid = ?", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, "looking for a run");
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, "looking for a run");
	return rc == SQLITE_ROW;
}

const char *db_name(const struct db *db)
{
	return db->path;
}

int db_get(struct db *db, const char *ref, json_t **doc)
{
	char *text = NULL, err[512];
	bool hex = strlen(ref) >= 4 && strspn(ref, "0123456789abcdef-") == strlen(ref);
	int r;

	if (db->empty)
		return -ENOENT;
	/* A run number first; failing that, an id prefix (which may be all digits). */
	r = db_get_text(db, ref, true, &text);
	if (r == -ENOENT && hex)
		r = db_get_text(db, ref, false, &text);
	if (r < 0)
		return r;
	r = doc_load_string(text, db->path, doc, err, sizeof(err));
	free(text);
	if (r < 0) {
		/* the store's fault, not the user's: the same message and code
		 * whether the run was named by number, id or selector */
		log_error("run %s: stored document is unreadable: %s", ref, err);
		return -EBADMSG;
	}
	return 0;
}

/* The parts of selector sel, each checked by the label grammar (label.h),
 * appended to filter (NULL: only checked); why says the first wrong one. */
static int selector_parse(const char *sel, struct strv *filter, char *why, size_t len)
{
	const char *p = sel;
	struct strv out = { 0 };

	if (!sel || !*sel) {
		snprintf(why, len, "it is empty; %s", LABEL_RULE);
		return -EINVAL;
	}
	for (;;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		char *part;
		int r;

		if (!eq) {
			snprintf(why, len, "each part must be KEY=VALUE, e.g. hv=kvm,disk=sata (part %zu has no '=')",
				 out.n + 1);
			r = -EINVAL;
		} else {
			r = label_check(p, (size_t)(eq - p), eq + 1, (size_t)(end - eq - 1), LABEL_SELECT, why, len);
		}
		if (r < 0) {
			strv_clear(&out);
			return r;
		}
		part = strndup(p, (size_t)(end - p));
		r = part ? strv_push(&out, part) : -ENOMEM;
		free(part);
		if (r < 0) {
			strv_clear(&out);
			snprintf(why, len, "out of memory");
			return -ENOMEM;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	for (size_t i = 0; filter && i < out.n; i++)
		if (strv_push(filter, out.v[i]) < 0) {
			strv_clear(&out);
			strv_clear(filter);
			snprintf(why, len, "out of memory");
			return -ENOMEM;
		}
	strv_clear(&out);
	return 0;
}

int db_parse_selector(const char *sel, struct strv *filter)
{
	char why[8];

	return selector_parse(sel, filter, why, sizeof(why));
}

int db_selector_why(const char *sel, char *why, size_t len)
{
	return selector_parse(sel, NULL, why, len);
}

/* The filter as a JSON array of distinct [key, value] pairs, bound as one
 * parameter: a query of constant size however long the selector is.
 * *never: a pair no stored label can equal (not UTF-8, as every stored
 * label is, or no KEY=VALUE at all). NULL only when out of memory. */
static char *filter_json(const struct strv *filter, size_t *npairs, bool *never)
{
	json_t *pairs = json_array(), *seen = json_object();
	char *text = NULL;

	*never = false;
	if (!pairs || !seen)
		goto out;
	for (size_t i = 0; filter && i < filter->n; i++) {
		const char *kv = filter->v[i], *eq = strchr(kv, '=');

		/* not KEY=VALUE (the callers never pass one) matches nothing, never everything */
		if (!eq || str_find_bad_utf8(kv, strlen(kv)) >= 0) {
			*never = true;
			continue;
		}
		if (json_object_get(seen, kv))
			continue;
		if (json_object_set_new(seen, kv, json_true()) < 0 ||
		    json_array_append_new(pairs, json_pack("[s#s]", kv, (int)(eq - kv), eq + 1)) < 0)
			goto out;
	}
	*npairs = json_array_size(pairs);
	text = json_dumps(pairs, JSON_COMPACT);
out:
	json_decref(pairs);
	json_decref(seen);
	return text;
}

int db_list(struct db *db, const struct strv *filter, int (*fn)(const struct db_row *, void *), void *arg)
{
	sqlite3_stmt *st;
	size_t npairs = 0;
	bool never;
	char *pairs;
	int rc, r = 0;

	if (db->empty)
		return 0;
	pairs = filter_json(filter, &npairs, &never);
	if (!pairs)
		return -ENOMEM;
	if (never) {
		free(pairs);
		return 0;
	}
#ifdef HAVE_LIBPQ
	if (db->pg) {
		r = db_pg_list(db->pg, pairs, npairs, fn, arg);
		free(pairs);
		return r;
	}
#endif
	/* A run matches when every pair is one of its labels: a run has one
	 * value per key, so each label matches at most one distinct pair. */
	rc = sqlite3_prepare_v2(db->h,
				"SELECT r.id, r.uuid, r.started, r.host, r.hypervisor, "
				"(SELECT group_concat(key || '=' || value, ' ') FROM "
				"  (SELECT key, value FROM labels WHERE run_id = r.id ORDER BY key)), r.suites, "
				"(SELECT json_group_object(key, value) FROM "
				"  (SELECT key, value FROM labels WHERE run_id = r.id ORDER BY key)), "
				/* a document that is not JSON is one row marked
				 * unreadable, not an error for the whole list */
				"CASE WHEN json_valid(r.doc) THEN json_extract(r.doc, '$.status') = 'interrupted' "
				"ELSE 0 END, json_valid(r.doc), "
				"CASE WHEN json_valid(r.doc) THEN json_type(r.doc, '$.lab_failure') IS NOT NULL ELSE 0 END "
				"FROM runs r WHERE ?2 = 0 OR ?2 = "
				"(SELECT count(*) FROM labels l JOIN json_each(?1) f "
				"   ON l.key = json_extract(f.value, '$[0]') AND l.value = json_extract(f.value, '$[1]') "
				" WHERE l.run_id = r.id) "
				"ORDER BY r.id",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		free(pairs);
		return db_err(db, "listing runs");
	}
	sqlite3_bind_text(st, 1, pairs, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)npairs);
	free(pairs);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_row row = {
			.id = sqlite3_column_int64(st, 0),
			.uuid = (const char *)sqlite3_column_text(st, 1),
			.started = (const char *)sqlite3_column_text(st, 2),
			.host = (const char *)sqlite3_column_text(st, 3),
			.hypervisor = (const char *)sqlite3_column_text(st, 4),
			.labels = (const char *)sqlite3_column_text(st, 5),
			.suites = (const char *)sqlite3_column_text(st, 6),
			.labels_json = (const char *)sqlite3_column_text(st, 7),
			.interrupted = sqlite3_column_int(st, 8) == 1,
			.unreadable = sqlite3_column_int(st, 9) != 1,
			.lab_failure = sqlite3_column_int(st, 10) == 1,
		};

		r = fn(&row, arg);
		if (r < 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_err(db, "listing runs");
	sqlite3_finalize(st);
	return r;
}
