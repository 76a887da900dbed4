/* The SQLite result store: every run's document, its labels and a flat
 * table of metric summaries, written in one transaction per run. */
#ifndef VMB_DB_H
#define VMB_DB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/util.h"
#include "label.h"

#define DB_APPLICATION_ID 0x564d4231 /* "VMB1" */
#define DB_SCHEMA_VERSION 1
/* The longest label key (label.h). */
#define DB_LABEL_KEY_MAX LABEL_KEY_MAX

struct db;

/* Where the store is: --db, else $VMBENCH_DB, else
 * $XDG_DATA_HOME/vmbench/results.db, else ~/.local/share/vmbench/results.db.
 * -EINVAL for an explicit empty path, -ENOENT when no place is known. */
int db_default_path(const char *explicit_path, char *buf, size_t len);

/* Open (create when `create`, with its directory). Refuses a path that
 * cannot be a store (empty, a directory, under a file), a file that is not
 * SQLite, another program's database, or a newer schema, with a message
 * naming the file. -ENOENT when !create and there is none. A new or 0-byte
 * file is an empty SQLite database: with `create` it gets the schema (safe
 * when several processes do this at once), without it is a store with no
 * runs and stays untouched. */
int db_open(const char *path, bool create, struct db **out);
/* Whether path names a PostgreSQL store (postgresql://USER@HOST/DB, or
 * postgres://): db_open connects to it through libpq (src/store/db_pg.c),
 * with the same tables in the schema vmbench, made when create. */
bool db_is_postgres(const char *path);
void db_close(struct db *db);
/* Whether a db_open() error means the user named a wrong file (exit 2). */
bool db_usage_error(int r);

/* Store a validated document; *id is the new run's number. */
int db_add(struct db *db, const json_t *doc, int64_t *id);
/* The document of run id (a number, or a prefix of the document's uuid).
 * -ENOENT: no such run; -EINVAL: an ambiguous prefix (said); -EBADMSG: the
 * stored document is unreadable (not JSON, or not a valid result: said, as
 * "run N: stored document is unreadable: ..."). */
int db_get(struct db *db, const char *ref, json_t **doc);

/* 1 when a run's document has this id (its whole uuid), 0 when none has,
 * or a negative errno after saying why. */
int db_has_uuid(struct db *db, const char *uuid);
/* The store's name for messages: its path, or its URL without a password. */
const char *db_name(const struct db *db);

struct db_row {
	int64_t id;
	const char *uuid, *started, *host, *hypervisor;
	const char *labels;      /* "k=v k2=v2", keys in order; NULL when none */
	const char *suites;      /* "cpu,disk" */
	const char *labels_json; /* {"k": "v", ...}, keys in order: values may hold spaces */
	bool interrupted;        /* the document's status is "interrupted" */
	bool unreadable;         /* the stored document is not JSON (db_get says why) */
	bool lab_failure;        /* a lab run's marker of a failed boot: no measurement */
};
/* A label selector "k=v,k2=v2" appended to `filter` as KEY=VALUE strings:
 * 0, -EINVAL when a part is not a label by the grammar of label.h (which
 * every stored label a user gave fits), -E2BIG when a key is longer than
 * DB_LABEL_KEY_MAX. Any length and any number of parts. */
int db_parse_selector(const char *sel, struct strv *filter);
/* db_parse_selector's error for sel, and why it is one (0: none). */
int db_selector_why(const char *sel, char *why, size_t len);

/* Runs with all the KEY=VALUE labels in `filter`, oldest first; a run
 * whose document is not JSON is listed too, marked `unreadable`. */
int db_list(struct db *db, const struct strv *filter, int (*fn)(const struct db_row *, void *), void *arg);

#endif
