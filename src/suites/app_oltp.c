/* app.oltp: sysbench 1.0's OLTP scripts (oltp_common.lua and the four
 * oltp_*.lua this suite follows) on any back end of the driver table.
 *
 * Tables sbtest1..N (id INTEGER primary key, k INTEGER with index k_N,
 * c CHAR(120), pad CHAR(60)), --app.table-size rows each, prepared on the
 * first OLTP test and dropped in teardown: prepare and cleanup are never
 * measured. Ids come from sysbench's default "special" distribution
 * (--rand-spec-pct=1, --rand-spec-res=75, --rand-spec-iter=12). An ignorable
 * error rolls the transaction back and runs it again, counted in errors; a
 * lost connection ends the test with the count of transactions before it. */
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "app.h"
#include "app_oltp.h"
#include "../core/clock.h"
#include "../core/log.h"
#include "../core/stoppoint.h"
#include "../core/sys.h"
#include "../core/banned.h"

#define RANGE_SIZE 100   /* sysbench --range_size */
#define POINT_SELECTS 10 /* sysbench --point_selects */

enum oltp_stmt { ST_POINT, ST_SIMPLE, ST_SUM, ST_ORDER, ST_DISTINCT, ST_INDEX_UPD, ST_NON_INDEX_UPD, ST_DELETE,
		 ST_INSERT, ST_N };

/* oltp_common.lua's stmt_defs, with the table number for %u */
static const struct {
	const char *sql;
	unsigned nparams;
} stmt_defs[ST_N] = {
	[ST_POINT] = { "SELECT c FROM sbtest%u WHERE id=?", 1 },
	[ST_SIMPLE] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", 2 },
	[ST_SUM] = { "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", 2 },
	[ST_ORDER] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", 2 },
	[ST_DISTINCT] = { "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", 2 },
	[ST_INDEX_UPD] = { "UPDATE sbtest%u SET k=k+1 WHERE id=?", 1 },
	[ST_NON_INDEX_UPD] = { "UPDATE sbtest%u SET c=? WHERE id=?", 2 },
	[ST_DELETE] = { "DELETE FROM sbtest%u WHERE id=?", 1 },
	[ST_INSERT] = { "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)", 4 },
};

/* What each script prepares and whether its event is a transaction. */
static const struct {
	unsigned stmts; /* bit per enum oltp_stmt */
	bool trx, writes;
} workloads[] = {
	[OLTP_READ_WRITE] = { (1u << ST_N) - 1, true, true },
	[OLTP_READ_ONLY] = { (1u << ST_POINT) | (1u << ST_SIMPLE) | (1u << ST_SUM) | (1u << ST_ORDER) |
				     (1u << ST_DISTINCT), true, false },
	[OLTP_POINT_SELECT] = { 1u << ST_POINT, false, false },
	[OLTP_UPDATE_INDEX] = { 1u << ST_INDEX_UPD, false, true },
};

static const struct oltp_driver *const drivers[] = {
	&oltp_sqlite_driver,
#ifdef HAVE_LIBPQ
	&oltp_pgsql_driver,
#endif
#ifdef HAVE_MARIADB
	&oltp_mysql_driver,
#endif
};

/* The schemes --app.db may name, built in or not, for the message. */
static const struct {
	const char *scheme, *what;
} known_schemes[] = {
	{ "postgresql://", "PostgreSQL (libpq)" },
	{ "postgres://", "PostgreSQL (libpq)" },
	{ "mysql://", "MariaDB/MySQL (libmariadb)" },
	{ "mariadb://", "MariaDB/MySQL (libmariadb)" },
};

struct oltp_state {
	const struct oltp_driver *drv;
	struct oltp_conf conf;
	char path[PATH_MAX];
	char url[1024];
	char shown[1024]; /* the URL without its password: what messages and results say */
	unsigned tables, table_size;
	unsigned created;          /* tables created so far: what cleanup drops */
	bool db_file;              /* the embedded database file exists and is ours */
	_Atomic uint64_t server_txns; /* transactions the server saw from us, for the tests */
	_Atomic uint64_t commits;     /* COMMIT statements that succeeded (MariaDB's Com_commit) */
	_Atomic uint64_t errors;
};

/* xoshiro-free and enough: splitmix64 per thread, doubles in [0, 1) */
struct rng {
	uint64_t s;
};

static double rng_double(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) * 0x1.0p-53;
}

/* sb_rand_uniform */
static uint32_t rand_uniform(struct rng *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(rng_double(r) * (b - a + 1));
}

/* sb_rand_special with sysbench 1.0's defaults: pct 1, res 75, iter 12 */
static uint32_t rand_special(struct rng *r, uint32_t a, uint32_t b)
{
	const double res_mult = 100.0 / (100.0 - 75), pct_mult = 1 / 100.0, pct_2_mult = 1 / 200.0;
	const unsigned iter = 12;
	double t = b - a, rnd = rng_double(r), res = rnd * t * res_mult, sum = 0;

	if (res < t) {
		for (unsigned i = 0; i < iter; i++)
			sum += rng_double(r);
		return a + (uint32_t)(sum * t / iter);
	}
	res = rnd * (t * pct_mult + 1);
	res += t / 2 - t * pct_2_mult;
	return a + (uint32_t)res;
}

/* sb_rand_str: '#' becomes a digit */
static void rand_str(struct rng *r, char *buf, unsigned groups)
{
	char *p = buf;

	for (unsigned g = 0; g < groups; g++) {
		for (unsigned i = 0; i < 11; i++)
			*p++ = (char)rand_uniform(r, '0', '9');
		if (g + 1 < groups)
			*p++ = '-';
	}
	*p = '\0';
}

#define C_GROUPS 10  /* c: 10 groups of 11 digits, 119 characters */
#define PAD_GROUPS 5 /* pad: 59 characters */

struct oltp_conn {
	const struct oltp_driver *drv;
	struct oltp_state *st;
	void *c;
	bool in_trx;
	char err[512];
};

static int conn_open(struct oltp_state *st, struct oltp_conn *oc)
{
	int r;

	memset(oc, 0, sizeof(*oc));
	oc->drv = st->drv;
	oc->st = st;
	r = st->drv->connect(&st->conf, &oc->c, oc->err, sizeof(oc->err));
	if (r == 0 && st->drv != &oltp_sqlite_driver)
		st->server_txns++; /* the backend's start-up reads its catalog in a transaction */
	return r;
}

static void conn_close(struct oltp_conn *oc)
{
	if (oc->c)
		oc->drv->disconnect(oc->c);
	oc->c = NULL;
}

static int conn_exec(struct oltp_conn *oc, const char *sql)
{
	bool begin = !strncmp(sql, "BEGIN", 5), commit = !strcmp(sql, "COMMIT"), rollback = !strcmp(sql, "ROLLBACK");
	int r = oc->drv->exec(oc->c, sql, oc->err, sizeof(oc->err));

	if (r == 0 && (commit || (!oc->in_trx && !begin && !rollback)))
		oc->st->server_txns++;
	if (r == 0 && commit)
		oc->st->commits++;
	if (r == 0 && begin)
		oc->in_trx = true;
	if (commit || rollback)
		oc->in_trx = false; /* also when it failed: the server has ended the transaction */
	return r;
}

static int conn_prepare(struct oltp_conn *oc, unsigned id, const char *sql, unsigned np)
{
	int r = oc->drv->prepare(oc->c, id, sql, np, oc->err, sizeof(oc->err));

	if (r == 0 && oc->drv->prepare_is_txn && !oc->in_trx)
		oc->st->server_txns++;
	return r;
}

static int conn_execute(struct oltp_conn *oc, unsigned id, const struct oltp_param *p, unsigned np)
{
	uint64_t rows = 0;
	int r = oc->drv->execute(oc->c, id, p, np, &rows, oc->err, sizeof(oc->err));

	if (r == 0 && !oc->in_trx)
		oc->st->server_txns++;
	return r;
}

static unsigned stmt_id(unsigned table, enum oltp_stmt s)
{
	return (table - 1) * ST_N + (unsigned)s;
}

static int conn_prepare_all(struct oltp_conn *oc, unsigned mask)
{
	char sql[256];
	int r;

	for (unsigned t = 1; t <= oc->st->tables; t++)
		for (unsigned s = 0; s < ST_N; s++) {
			if (!(mask & (1u << s)))
				continue;
			snprintf(sql, sizeof(sql), stmt_defs[s].sql, t);
			r = conn_prepare(oc, stmt_id(t, s), sql, stmt_defs[s].nparams);
			if (r != 0)
				return r < 0 ? r : -EBUSY;
		}
	return 0;
}

/* sysbench's prepare: create each table, fill it in one transaction, then
 * the secondary index (--create_secondary=on). */
static int oltp_prepare(struct vmb_ctx *ctx, struct oltp_state *st)
{
	struct oltp_conn oc;
	struct rng rng = { 0x5eed };
	char sql[512], c[128], pad[64];
	int r;

	r = conn_open(st, &oc);
	if (r != 0) {
		r = r < 0 ? r : -EBUSY;
		return vmb_fail(ctx, r, "connecting to %s: %s", st->url[0] ? st->shown : st->path, oc.err);
	}
	for (unsigned t = 1; t <= st->tables; t++) {
		snprintf(sql, sizeof(sql),
			 "CREATE TABLE sbtest%u(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, "
			 "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))", t);
		r = conn_exec(&oc, sql);
		if (r != 0) {
			r = vmb_fail(ctx, r < 0 ? r : -EBUSY, "creating table sbtest%u in %s (vmbench creates its own "
							       "tables and refuses to touch existing ones): %s",
				     t, st->url[0] ? st->shown : st->path, oc.err);
			goto out;
		}
		st->created = t;
		r = conn_exec(&oc, "BEGIN");
		snprintf(sql, sizeof(sql), stmt_defs[ST_INSERT].sql, t);
		if (r == 0)
			r = conn_prepare(&oc, stmt_id(t, ST_INSERT), sql, 4);
		for (unsigned i = 1; r == 0 && i <= st->table_size; i++) {
			struct oltp_param p[4] = { { .i = i }, { .i = rand_uniform(&rng, 1, st->table_size) },
						   { .s = c }, { .s = pad } };

			rand_str(&rng, c, C_GROUPS);
			rand_str(&rng, pad, PAD_GROUPS);
			r = conn_execute(&oc, stmt_id(t, ST_INSERT), p, 4);
			if ((i & 1023) == 0 && vmb_stop_requested())
				r = -EINTR;
		}
		if (r == 0)
			r = conn_exec(&oc, "COMMIT");
		snprintf(sql, sizeof(sql), "CREATE INDEX k_%u ON sbtest%u(k)", t, t);
		if (r == 0)
			r = conn_exec(&oc, sql);
		if (r != 0) {
			if (r != -EINTR)
				r = vmb_fail(ctx, r < 0 ? r : -EBUSY, "filling table sbtest%u: %s", t, oc.err);
			goto out;
		}
	}
	(void)vmb_note(ctx, "oltp_tables", "%u x %u rows", st->tables, st->table_size);
out:
	conn_close(&oc);
	return r;
}

struct oltp_worker {
	struct oltp_state *st;
	enum oltp_kind kind;
	double duration_s;
	struct rng rng;
	uint64_t events, queries, errors;
	struct hist hist;
	int fatal;        /* the negative errno that ended this thread early */
	char err[512];
};

static int ex(struct oltp_conn *oc, unsigned t, enum oltp_stmt s, const struct oltp_param *p, uint64_t *q)
{
	int r = conn_execute(oc, stmt_id(t, s), p, stmt_defs[s].nparams);

	*q += r == 0;
	return r;
}

static int range(struct oltp_worker *w, struct oltp_conn *oc, enum oltp_stmt s, uint64_t *q)
{
	unsigned t = rand_uniform(&w->rng, 1, w->st->tables);
	uint32_t id = rand_special(&w->rng, 1, w->st->table_size);
	struct oltp_param p[2] = { { .i = id }, { .i = (int64_t)id + RANGE_SIZE - 1 } };

	return ex(oc, t, s, p, q);
}

/* One event of the script: 0, OLTP_RETRY or a negative errno. */
static int oltp_event(struct oltp_worker *w, struct oltp_conn *oc, uint64_t *q)
{
	const unsigned ts = w->st->tables, n = w->st->table_size;
	const bool trx = workloads[w->kind].trx;
	char c[128], pad[64];
	unsigned t;
	int r = 0;

	if (trx) {
		r = conn_exec(oc, workloads[w->kind].writes ? oc->drv->begin_write : "BEGIN");
		*q += r == 0;
	}
	if (r == 0 && w->kind != OLTP_UPDATE_INDEX) { /* execute_point_selects */
		unsigned k = w->kind == OLTP_POINT_SELECT ? 1 : POINT_SELECTS;

		t = rand_uniform(&w->rng, 1, ts);
		for (unsigned i = 0; r == 0 && i < k; i++) {
			struct oltp_param p = { .i = rand_special(&w->rng, 1, n) };

			r = ex(oc, t, ST_POINT, &p, q);
		}
	}
	if (r == 0 && (w->kind == OLTP_READ_WRITE || w->kind == OLTP_READ_ONLY)) {
		r = range(w, oc, ST_SIMPLE, q);
		if (r == 0)
			r = range(w, oc, ST_SUM, q);
		if (r == 0)
			r = range(w, oc, ST_ORDER, q);
		if (r == 0)
			r = range(w, oc, ST_DISTINCT, q);
	}
	if (r == 0 && (w->kind == OLTP_READ_WRITE || w->kind == OLTP_UPDATE_INDEX)) {
		struct oltp_param p;

		t = rand_uniform(&w->rng, 1, ts);
		p.s = NULL;
		p.i = rand_special(&w->rng, 1, n);
		r = ex(oc, t, ST_INDEX_UPD, &p, q);
	}
	if (r == 0 && w->kind == OLTP_READ_WRITE) {
		struct oltp_param p[4];

		t = rand_uniform(&w->rng, 1, ts);
		rand_str(&w->rng, c, C_GROUPS);
		p[0] = (struct oltp_param){ .s = c };
		p[1] = (struct oltp_param){ .i = rand_special(&w->rng, 1, n) };
		r = ex(oc, t, ST_NON_INDEX_UPD, p, q);
		if (r == 0) { /* execute_delete_inserts */
			uint32_t id = rand_special(&w->rng, 1, n), k = rand_special(&w->rng, 1, n);

			t = rand_uniform(&w->rng, 1, ts);
			p[0] = (struct oltp_param){ .i = id };
			r = ex(oc, t, ST_DELETE, p, q);
			rand_str(&w->rng, c, C_GROUPS);
			rand_str(&w->rng, pad, PAD_GROUPS);
			p[1] = (struct oltp_param){ .i = k };
			p[2] = (struct oltp_param){ .s = c };
			p[3] = (struct oltp_param){ .s = pad };
			if (r == 0)
				r = ex(oc, t, ST_INSERT, p, q);
		}
	}
	if (r == 0 && trx) {
		r = conn_exec(oc, "COMMIT");
		*q += r == 0;
	}
	if (r != 0 && oc->in_trx)
		(void)conn_exec(oc, "ROLLBACK");
	return r;
}

static void oltp_worker_fn(struct vmb_worker *vw)
{
	struct oltp_worker *w = vw->arg;
	struct oltp_conn oc;
	uint64_t deadline, start, now;
	int r;

	r = conn_open(w->st, &oc);
	if (r == 0)
		r = conn_prepare_all(&oc, workloads[w->kind].stmts);
	if (r != 0) {
		vw->err = r < 0 ? r : -EBUSY;
		snprintf(w->err, sizeof(w->err), "%s", oc.err);
	}
	vmb_worker_sync(vw);
	if (vw->err < 0)
		goto out;
	now = vw->start_ns = clock_ns();
	deadline = now + (uint64_t)(w->duration_s * NSEC_PER_SEC);
	for (;;) {
		uint64_t q = 0;

		start = now;
		while ((r = oltp_event(w, &oc, &q)) == OLTP_RETRY) {
			w->errors++;
			q = 0;
			if (vmb_stop_requested() || clock_ns() >= deadline)
				break;
		}
		now = clock_ns();
		if (r < 0) {
			w->fatal = r;
			snprintf(w->err, sizeof(w->err), "%s", oc.err);
			break;
		}
		if (r == 0) {
			hist_record(&w->hist, now - start);
			w->events++;
			w->queries += q;
		}
		if (now >= deadline || vmb_stop_requested())
			break;
	}
	vw->end_ns = now;
out:
	conn_close(&oc);
}

/* Whether a query parameter's name, percent-decoded, ends in "password"
 * (libpq's password and sslpassword, MariaDB's), in any case */
static bool url_key_secret(const char *k, size_t n)
{
	char d[64];
	size_t m = 0;

	for (size_t i = 0; i < n && m < sizeof(d); i++) {
		if (k[i] == '%' && i + 2 < n && isxdigit((unsigned char)k[i + 1]) && isxdigit((unsigned char)k[i + 2])) {
			char hex[3] = { k[i + 1], k[i + 2], '\0' };

			d[m++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			d[m++] = k[i];
		}
	}
	return m >= 8 && !strncasecmp(d + m - 8, "password", 8);
}

/* The next secret of url from the cursor *at (0 at first): the password of
 * USER:PASSWORD@, up to the last '@' before the query (wider than libpq
 * reads it, so that a malformed one, with a '/' in it, is hidden too), then
 * the value of each query parameter url_key_secret names. *off and *n its
 * span, *at moved past it; false when there is none. */
static bool url_secret(const char *url, size_t *at, size_t *off, size_t *n)
{
	const char *auth = strstr(url, "://");
	size_t q = strcspn(url, "?"), i;

	if (*at == 0 && auth) {
		size_t a = (size_t)(auth + 3 - url), colon = a + strcspn(url + a, ":"), last = 0;

		for (i = a; i < q; i++)
			if (url[i] == '@')
				last = i;
		if (last && colon < last) {
			*off = colon + 1;
			*n = last - colon - 1;
			*at = last;
			return true;
		}
	}
	/* from the '?' or an '&': KEY=VALUE up to the next '&' */
	for (i = *at > q ? *at : q; url[i];) {
		size_t k = i + 1, klen = strcspn(url + k, "=&");

		i = k + strcspn(url + k, "&");
		if (url[k + klen] == '=' && url_key_secret(url + k, klen)) {
			*off = k + klen + 1;
			*n = i - *off;
			*at = i;
			return true;
		}
	}
	return false;
}

/* n bytes of s after out's first *o, cut at len */
static void url_put(char *out, size_t len, size_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *o + 1 < len; i++)
		out[(*o)++] = s[i];
	out[*o] = '\0';
}

void app_oltp_url_shown(const char *url, char *out, size_t len)
{
	size_t at = 0, from = 0, off, n, o = 0;

	if (!len)
		return;
	out[0] = '\0';
	/* no byte of a secret is copied: a cut out shows none either */
	while (url_secret(url, &at, &off, &n)) {
		url_put(out, len, &o, url + from, off - from);
		url_put(out, len, &o, "***", 3);
		from = off + n;
	}
	url_put(out, len, &o, url + from, strlen(url + from));
}

/* Whether some occurrence of the n bytes x in url overlaps a password */
static bool url_quotes_secret(const char *url, const char *x, size_t n)
{
	for (size_t pos = 0; n && url[pos]; pos++) {
		size_t at = 0, off, sn;

		if (strncmp(url + pos, x, n))
			continue;
		while (url_secret(url, &at, &off, &sn))
			if (sn && pos < off + sn && off < pos + n)
				return true;
	}
	return false;
}

void app_url_scrub(const char *url, char *msg, size_t len)
{
	char *out = len ? malloc(len) : NULL;
	size_t o = 0;

	if (!out) {
		if (len)
			msg[0] = '\0';
		return;
	}
	out[0] = '\0';
	/* libpq quotes what it cannot read: "..." that is the URL is shown
	 * as app_oltp_url_shown shows it, one that is a password's, or a
	 * piece of one, as *** (short passwords may be any word elsewhere) */
	for (const char *p = msg; *p;) {
		const char *end = *p == '"' ? strchr(p + 1, '"') : NULL;
		size_t n = end ? (size_t)(end - p - 1) : 0;

		if (end && n == strlen(url) && !strncmp(p + 1, url, n)) {
			char *shown = malloc(APP_URL_SHOWN_LEN(url));

			if (shown)
				app_oltp_url_shown(url, shown, APP_URL_SHOWN_LEN(url));
			url_put(out, len, &o, "\"", 1);
			url_put(out, len, &o, shown ? shown : "***", strlen(shown ? shown : "***"));
			url_put(out, len, &o, "\"", 1);
			free(shown);
			p = end + 1;
		} else if (end && url_quotes_secret(url, p + 1, n)) {
			url_put(out, len, &o, "\"***\"", 5);
			p = end + 1;
		} else {
			url_put(out, len, &o, p, end ? n + 2 : 1);
			p += end ? n + 2 : 1;
		}
	}
	memcpy(msg, out, o + 1);
	free(out);
}

/* The embedded back end is "sqlite" exactly (or the default): a prefix
 * match would take "sqlite3://..." for it. */
static bool driver_takes(const struct oltp_driver *d, const char *url)
{
	if (d == &oltp_sqlite_driver)
		return false;
	return !strncmp(url, d->scheme, strlen(d->scheme)) || (d->alias && !strncmp(url, d->alias, strlen(d->alias)));
}

int oltp_url_check(const char *url, char *err, size_t errlen)
{
	if (!url || !*url || !strcmp(url, "sqlite"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(known_schemes); i++)
		if (vmb_static_build && !strncmp(url, known_schemes[i].scheme, strlen(known_schemes[i].scheme))) {
			/* short enough to be said whole behind the URL (the test's
			 * reason holds 255 bytes) */
			snprintf(err, errlen, "needs %s, which a static vmbench cannot load (a client loaded at run "
					      "time): use a vmbench built with shared libraries (make), or --app.db sqlite",
				 known_schemes[i].what);
			return -EOPNOTSUPP;
		}
	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
		if (driver_takes(drivers[i], url))
			return drivers[i]->check_url ? drivers[i]->check_url(url, err, errlen) : 0;
	for (size_t i = 0; i < ARRAY_SIZE(known_schemes); i++)
		if (!strncmp(url, known_schemes[i].scheme, strlen(known_schemes[i].scheme))) {
			snprintf(err, errlen, "needs %s, which this vmbench was built without; the embedded SQLite "
					      "back end (--app.db sqlite) is always there", known_schemes[i].what);
			return -EOPNOTSUPP;
		}
	snprintf(err, errlen, "not a database URL; use sqlite (embedded, the default), "
			      "postgresql://USER@HOST:PORT/DB or mysql://USER:PASSWORD@HOST:PORT/DB[?socket=PATH]");
	return -EINVAL;
}

int app_oltp_check_url(struct vmb_ctx *ctx, const char *url)
{
	char shown[1024], err[256];

	if (oltp_url_check(url, err, sizeof(err)) == 0)
		return 0;
	app_oltp_url_shown(url, shown, sizeof(shown));
	return vmb_usage(ctx, "--app.db %s: %s", shown, err);
}

uint32_t oltp_rand_special(uint64_t *state, uint32_t a, uint32_t b)
{
	struct rng r = { *state };
	uint32_t v = rand_special(&r, a, b);

	*state = r.s;
	return v;
}

static int oltp_state_new(struct vmb_ctx *ctx, struct oltp_state **out)
{
	struct app_state *as = ctx->priv;
	const char *url = optset_str(ctx->opts, "db");
	struct oltp_state *st = calloc(1, sizeof(*st));
	int fd, r;

	if (!st)
		return vmb_fail(ctx, -ENOMEM, "oltp state");
	st->tables = (unsigned)optset_int(ctx->opts, "tables");
	st->table_size = (unsigned)optset_int(ctx->opts, "table-size");
	st->conf.sync_full = !strcmp(optset_str(ctx->opts, "sync"), "full");
	st->drv = &oltp_sqlite_driver;
	if (url && *url && strcmp(url, "sqlite")) {
		for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
			if (driver_takes(drivers[i], url))
				st->drv = drivers[i];
		snprintf(st->url, sizeof(st->url), "%s", url);
		app_oltp_url_shown(url, st->shown, sizeof(st->shown));
		st->conf.url = st->url;
		*out = st;
		return 0;
	}
	/* A new, uniquely named database file and its WAL and shared-memory
	 * files, all registered before SQLite creates them. */
	snprintf(st->path, sizeof(st->path), "%s/vmbench-oltp-XXXXXX", as->dir);
	fd = mkstemp(st->path);
	if (fd < 0) {
		r = -errno;
		free(st);
		return vmb_fail(ctx, r, "creating the database file in %s", as->dir);
	}
	(void)close(fd);
	st->db_file = true;
	st->conf.path = st->path;
	r = vmb_tempfile_add(st->path);
	for (size_t i = 0; r == 0 && i < 2; i++) {
		char p[PATH_MAX + 8];

		snprintf(p, sizeof(p), "%s%s", st->path, i ? "-shm" : "-wal");
		r = vmb_tempfile_add(p);
	}
	*out = st;
	if (r < 0)
		return vmb_fail(ctx, r, "registering %s for removal", st->path);
	(void)vmb_note(ctx, "oltp_db", "sqlite, embedded (WAL, synchronous=%s)", st->conf.sync_full ? "FULL" : "NORMAL");
	return 0;
}

int app_oltp_run(struct vmb_ctx *ctx, enum oltp_kind kind, struct vmb_rep *rep)
{
	struct app_state *as = ctx->priv;
	struct oltp_state *st;
	unsigned n = ctx->threads;
	struct vmb_worker *vw = NULL;
	struct oltp_worker *w = NULL;
	struct hist *all = NULL;
	uint64_t start = UINT64_MAX, end = 0, events = 0, queries = 0, errors = 0;
	double window;
	int r;

	if (!as->oltp) { /* sysbench's prepare, outside every measured window */
		r = oltp_state_new(ctx, &as->oltp);
		if (r < 0)
			return r;
		r = oltp_prepare(ctx, as->oltp);
		if (r < 0)
			return r;
		vmb_test_stop_point("app-oltp-prepared"); /* tests interrupt or break the run here */
	} else if (as->oltp->created < as->oltp->tables) {
		return vmb_fail(ctx, -EIO, "the OLTP tables could not be prepared");
	}
	st = as->oltp;
	vw = calloc(n, sizeof(*vw));
	w = calloc(n, sizeof(*w));
	all = hist_new();
	if (!vw || !w || !all) {
		r = vmb_fail(ctx, -ENOMEM, "%u OLTP threads", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		w[i].st = st;
		w[i].kind = kind;
		w[i].duration_s = ctx->duration_s;
		w[i].rng.s = clock_ns() ^ ((uint64_t)(i + 1) << 48) ^ (uint64_t)getpid();
		vw[i].arg = &w[i];
	}
	r = vmb_parallel(ctx, n, oltp_worker_fn, vw);
	if (r < 0) {
		for (unsigned i = 0; i < n && !ctx->reason[0]; i++)
			if (vw[i].err < 0)
				r = vmb_fail(ctx, vw[i].err, "connecting to %s: %s",
					     st->url[0] ? st->shown : st->path, w[i].err);
		if (!ctx->reason[0])
			r = vmb_fail(ctx, r, "starting %u OLTP threads", n);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		start = vw[i].start_ns < start ? vw[i].start_ns : start;
		end = vw[i].end_ns > end ? vw[i].end_ns : end;
		events += w[i].events;
		queries += w[i].queries;
		errors += w[i].errors;
		hist_merge(all, &w[i].hist);
	}
	st->errors += errors;
	for (unsigned i = 0; i < n; i++)
		if (w[i].fatal < 0) {
			unsigned long long kept = events;

			r = vmb_fail(ctx, w[i].fatal, "thread %u lost its connection to %s after %llu transactions of "
						      "this repetition in all (counted, not reported as a rate): %s",
				     i + 1, st->url[0] ? st->shown : st->path, kept, w[i].err);
			goto out;
		}
	window = (double)(end - start) / NSEC_PER_SEC;
	if (events == 0 || window <= 0) {
		r = vmb_fail(ctx, -EIO, "no transaction completed in %.3f s (%llu errors)", ctx->duration_s,
			     (unsigned long long)errors);
		goto out;
	}
	vmb_rep_value(rep, "tps", VMB_UNIT_PER_S, VMB_HIGHER, (double)events / window);
	vmb_rep_value(rep, "qps", VMB_UNIT_PER_S, VMB_HIGHER, (double)queries / window);
	/* sysbench prints errors/s; a share of the attempts says the same and
	 * compares across speeds (the count is in the notes) */
	vmb_rep_value(rep, "errors_pct", VMB_UNIT_PCT, VMB_LOWER,
		      100.0 * (double)errors / (double)(events + errors));
	/* its p95 is sysbench's latency figure */
	vmb_rep_hist(rep, "latency", VMB_UNIT_NS, all);
	/* each thread one transaction at a time, timed inside its window */
	vmb_rep_closed_loop(rep, "tps", "latency", n, "thread");
	if (r == 0)
		(void)vmb_note(ctx, "oltp_server_transactions", "%llu",
			       (unsigned long long)atomic_load(&st->server_txns));
out:
	free(vw);
	free(w);
	hist_free(all);
	return r;
}

/* sysbench's cleanup: drop what prepare created, in a connection of its own. */
void app_oltp_cleanup(struct vmb_ctx *ctx)
{
	struct app_state *as = ctx->priv;
	struct oltp_state *st = as ? as->oltp : NULL;
	struct oltp_conn oc;
	char sql[64];

	if (!st)
		return;
	if (st->created && conn_open(st, &oc) == 0) {
		for (unsigned t = 1; t <= st->created; t++) {
			snprintf(sql, sizeof(sql), "DROP TABLE sbtest%u", t);
			if (conn_exec(&oc, sql) != 0)
				log_warn("app: dropping table sbtest%u in %s: %s", t,
					 st->url[0] ? st->shown : st->path, oc.err);
		}
		conn_close(&oc);
	} else if (st->created) {
		log_warn("app: could not reconnect to %s to drop tables sbtest1..%u: %s",
			 st->url[0] ? st->shown : st->path, st->created, oc.err);
	}
	if (st->db_file) {
		char p[PATH_MAX + 8];

		for (size_t i = 0; i < 3; i++) {
			snprintf(p, sizeof(p), "%s%s", st->path, (const char *[]){ "-wal", "-shm", "" }[i]);
			(void)vmb_tempfile_unlink(p);
		}
	}
	(void)vmb_note(ctx, "oltp_server_transactions", "%llu", (unsigned long long)atomic_load(&st->server_txns));
	(void)vmb_note(ctx, "oltp_commits", "%llu", (unsigned long long)atomic_load(&st->commits));
	(void)vmb_note(ctx, "oltp_errors", "%llu", (unsigned long long)atomic_load(&st->errors));
	free(st);
	as->oltp = NULL;
}
