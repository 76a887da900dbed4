/* The result store's PostgreSQL back end (db_pg.c): what db.c calls for a
 * postgresql:// store, built with libpq's headers (HAVE_LIBPQ). Each
 * function says what failed (log_error, naming the store without its
 * password) before it returns a negative errno. */
#ifndef VMB_DB_PG_H
#define VMB_DB_PG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "db.h"

struct db_pg;

/* Connect to url (shown: the same without its password, for messages) and
 * check the schema, or make it when create. -ECONNREFUSED: no connection;
 * -EOPNOTSUPP: libpq cannot be loaded; -EPROTO: a newer schema. */
int db_pg_open(const char *url, const char *shown, bool create, struct db_pg **out);
void db_pg_close(struct db_pg *db);
/* Opened read-only on a database without the schema: a store with no runs. */
bool db_pg_empty(const struct db_pg *db);
/* One run in one transaction: the document (validated), its text and its
 * suites' names; *id the run's number. */
int db_pg_add(struct db_pg *db, const json_t *doc, const char *text, const char *suites, int64_t *id);
/* As db.c's: one run's document text by number (by_id) or uuid prefix. */
int db_pg_get_text(struct db_pg *db, const char *ref, bool by_id, char **text);
/* As db_has_uuid: 1, 0, or a negative errno (said). */
int db_pg_has_uuid(struct db_pg *db, const char *uuid);
/* As db_list: the runs with all npairs labels of pairs ([[k, v], ...]). */
int db_pg_list(struct db_pg *db, const char *pairs, size_t npairs, int (*fn)(const struct db_row *, void *),
	       void *arg);

#endif
