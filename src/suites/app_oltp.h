/* The OLTP back ends: one row per database in a small driver table. A
 * driver connects, runs plain statements, prepares numbered statements and
 * executes them with integer or text parameters, fetching every row. */
#ifndef VMB_APP_OLTP_H
#define VMB_APP_OLTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An error the transaction survives by rolling back and starting again
 * (sysbench's ignorable errors: deadlock, serialization, busy, duplicate
 * key from a concurrent delete+insert): counted as an error, then retried. */
#define OLTP_RETRY 1

struct oltp_param {
	const char *s; /* text, or NULL for the integer */
	int64_t i;
};

struct oltp_conf {
	const char *url;  /* the server's URL, or NULL for the embedded database */
	const char *path; /* the embedded database's file */
	bool sync_full;   /* --app.sync full */
};

struct oltp_driver {
	const char *name;
	const char *scheme;  /* what --app.db starts with: "postgresql://" */
	const char *alias;   /* another spelling of it, or NULL */
	bool prepare_is_txn; /* the server counts a prepare as a transaction of its own */
	/* The statement that opens a transaction that will write. */
	const char *begin_write;
	/* Each returns 0, OLTP_RETRY, or a negative errno with the server's
	 * message in err. */
	/* A URL it cannot parse, before anything runs: -EINVAL with err; NULL: the server judges. */
	int (*check_url)(const char *url, char *err, size_t errlen);
	int (*connect)(const struct oltp_conf *conf, void **conn, char *err, size_t errlen);
	void (*disconnect)(void *conn);
	int (*exec)(void *conn, const char *sql, char *err, size_t errlen);
	int (*prepare)(void *conn, unsigned id, const char *sql, unsigned nparams, char *err, size_t errlen);
	/* Executes a prepared statement; *rows is what it returned or changed. */
	int (*execute)(void *conn, unsigned id, const struct oltp_param *p, unsigned np, uint64_t *rows,
		       char *err, size_t errlen);
};

/* --app.db checked without connecting: 0 for a back end this build has and
 * a URL it can parse; -EOPNOTSUPP for a known back end that is not built
 * in; -EINVAL for anything else. err says what would be right. */
int oltp_url_check(const char *url, char *err, size_t errlen);
/* sysbench 1.0's sb_rand_special(a, b) with its defaults (--rand-spec-pct=1,
 * --rand-spec-res=75, --rand-spec-iter=12), on a splitmix64 state. */
uint32_t oltp_rand_special(uint64_t *state, uint32_t a, uint32_t b);

extern const struct oltp_driver oltp_sqlite_driver;
#ifdef HAVE_LIBPQ
extern const struct oltp_driver oltp_pgsql_driver;
#endif
#ifdef HAVE_MARIADB
extern const struct oltp_driver oltp_mysql_driver;
#endif

#endif
