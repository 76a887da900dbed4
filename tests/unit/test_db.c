/* The SQLite store: round trip, label filters, refusal of foreign files. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "fixture_doc.h"
#include "../../src/store/db.h"

static char dir[] = "/tmp/vmbench-db-XXXXXX";

static int count_row(const struct db_row *row, void *arg)
{
	(void)row;
	(*(unsigned *)arg)++;
	return 0;
}

static void round_trip(void **state)
{
	char path[256];
	struct db *db;
	json_t *doc = fixture_doc(), *back, *doc2;
	struct strv filter = { 0 };
	int64_t id, id2;
	unsigned n = 0;
	char prefix[9];

	(void)state;
	snprintf(path, sizeof(path), "%s/sub/dir/results.db", dir);
	assert_int_equal(db_open(path, false, &db), -ENOENT);
	assert_int_equal(db_open(path, true, &db), 0); /* creates the directories */
	assert_int_equal(db_add(db, doc, &id), 0);
	doc2 = fixture_doc();
	json_object_set_new(json_object_get(doc2, "labels"), "hv", json_string("vmware"));
	/* an id whose prefix is all digits must still be found by its prefix */
	json_object_set_new(doc2, "id", json_string("12345678-aaaa-4bbb-8ccc-dddddddddddd"));
	assert_int_equal(db_add(db, doc2, &id2), 0);
	assert_true(id2 > id);
	db_close(db);

	assert_int_equal(db_open(path, false, &db), 0);
	assert_int_equal(db_get(db, "1", &back), 0);
	assert_true(json_equal(doc, back));
	json_decref(back);
	snprintf(prefix, sizeof(prefix), "%s", json_string_value(json_object_get(doc2, "id")));
	assert_int_equal(db_get(db, prefix, &back), 0);
	assert_true(json_equal(doc2, back));
	json_decref(back);
	assert_int_equal(db_get(db, "99", &back), -ENOENT);
	assert_int_equal(db_get(db, "zzzz", &back), -ENOENT);
	/* store copy's test: a whole uuid, never a prefix of one */
	assert_int_equal(db_has_uuid(db, "12345678-aaaa-4bbb-8ccc-dddddddddddd"), 1);
	assert_int_equal(db_has_uuid(db, "12345678-aaaa-4bbb-8ccc-ddddddddddde"), 0);
	assert_string_equal(db_name(db), path);

	assert_int_equal(db_list(db, &filter, count_row, &n), 0);
	assert_int_equal(n, 2);
	strv_push(&filter, "hv=vmware");
	n = 0;
	assert_int_equal(db_list(db, &filter, count_row, &n), 0);
	assert_int_equal(n, 1);
	strv_push(&filter, "disk=sata");
	n = 0;
	assert_int_equal(db_list(db, &filter, count_row, &n), 0);
	assert_int_equal(n, 0);
	strv_clear(&filter);
	db_close(db);
	json_decref(doc);
	json_decref(doc2);
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void refuses_foreign_files(void **state)
{
	char path[256];
	struct db *db;
	sqlite3 *h;

	(void)state;
	/* Not SQLite at all. */
	snprintf(path, sizeof(path), "%s/garbage.db", dir);
	write_file(path, "this is not a database, just text that is long enough to have a header......\n");
	assert_int_equal(db_open(path, true, &db), -EBADMSG);
	/* Another program's SQLite database. */
	snprintf(path, sizeof(path), "%s/other.db", dir);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(db_open(path, true, &db), -EBADMSG);
	/* A vmbench store from the future. */
	snprintf(path, sizeof(path), "%s/future.db", dir);
	assert_int_equal(db_open(path, true, &db), 0);
	db_close(db);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(db_open(path, true, &db), -EPROTO);
	/* A directory. */
	assert_int_equal(db_open(dir, true, &db), -EINVAL);
}

static void postgres_urls(void **state)
{
	(void)state;
	assert_true(db_is_postgres("postgresql://u@h/db"));
	assert_true(db_is_postgres("postgres:///vmb?host=/tmp/x"));
	assert_false(db_is_postgres("postgresql:/x"));
	assert_false(db_is_postgres("./postgresql://x"));
	assert_false(db_is_postgres("results.db"));
	assert_false(db_is_postgres(""));
}

static void default_path(void **state)
{
	char buf[256];

	(void)state;
	unsetenv("VMBENCH_DB");
	setenv("XDG_DATA_HOME", "/x/data", 1);
	assert_int_equal(db_default_path(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/x/data/vmbench/results.db");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(db_default_path(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/u/.local/share/vmbench/results.db");
	setenv("VMBENCH_DB", "/e.db", 1);
	assert_int_equal(db_default_path(NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/e.db");
	assert_int_equal(db_default_path("/given.db", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/given.db");
}

#define X10 "xxxxxxxxxx"
#define X100 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define LONG300 X100 X100 X100
#define KEY127 X100 X10 X10 "xxxxxxx"

static void selectors(void **state)
{
	static const struct {
		const char *sel;
		int r;
		size_t n;
		const char *last;
	} cases[] = {
		{ "hv=kvm", 0, 1, "hv=kvm" },
		{ "disk=sata,host=lab1", 0, 2, "host=lab1" },
		{ "a=b,c=d,e=f g", 0, 3, "e=f g" },
		{ "", -EINVAL, 0, NULL },
		{ "hv", -EINVAL, 0, NULL },
		{ "=kvm", -EINVAL, 0, NULL },
		{ "hv=", -EINVAL, 0, NULL },
		{ "hv=kvm,", -EINVAL, 0, NULL },
		{ "hv=kvm,,x=y", -EINVAL, 0, NULL },
		{ "a=b=c", -EINVAL, 0, NULL },
		/* a part of any length is kept whole (a 255-byte buffer cut it once) */
		{ "k=" LONG300, 0, 1, "k=" LONG300 },
		{ "a=b," LONG300 "=v", -E2BIG, 0, NULL },
		{ KEY127 "=v", 0, 1, KEY127 "=v" },
		{ KEY127 "x=v", -E2BIG, 0, NULL },
		/* the label grammar (label.h): a key of letters, digits, '.', '_', '-'; no control in a value */
		{ "a b=c", -EINVAL, 0, NULL },
		{ "a/b=c", -EINVAL, 0, NULL },
		{ "k=v\tw", -EINVAL, 0, NULL },
		{ "k=v\x1b[2J", -EINVAL, 0, NULL },
		/* not UTF-8: no stored label can be equal (the command line refuses it first) */
		{ "hv=kvm,disk=\xff", -EINVAL, 0, NULL },
		{ "disk.model_x-1=ide", 0, 1, "disk.model_x-1=ide" },
		/* a selector may name the lab's own labels: it selects, it sets nothing */
		{ "lab=20260101-000000-abcd,study=s", 0, 2, "study=s" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strv f = { 0 };
		int r = db_parse_selector(cases[i].sel, &f);

		if (r != cases[i].r)
			fail_msg("selector \"%s\": %d, expected %d", cases[i].sel, r, cases[i].r);
		assert_int_equal(f.n, cases[i].n);
		if (cases[i].last)
			assert_string_equal(f.v[f.n - 1], cases[i].last);
		strv_clear(&f);
	}
}

static json_t *doc_with(const char *id, const char *labels)
{
	json_t *doc = fixture_doc(), *l = json_object();
	struct strv f = { 0 };

	assert_int_equal(db_parse_selector(labels, &f), 0);
	for (size_t i = 0; i < f.n; i++) {
		char *eq = strchr(f.v[i], '=');

		*eq = '\0';
		json_object_set_new(l, f.v[i], json_string(eq + 1));
	}
	strv_clear(&f);
	json_object_set_new(doc, "labels", l);
	json_object_set_new(doc, "id", json_string(id));
	return doc;
}

static unsigned count_selected(struct db *db, const char *sel)
{
	struct strv f = { 0 };
	unsigned n = 0;

	assert_int_equal(db_parse_selector(sel, &f), 0);
	assert_int_equal(db_list(db, &f, count_row, &n), 0);
	strv_clear(&f);
	return n;
}

/* A selector of any length or number of parts is one query of constant
 * size (an AND of one EXISTS per part made SQLite refuse with "Expression
 * tree is too large" past a few hundred characters). */
static void long_selectors(void **state)
{
	static const struct {
		const char *stored[3];
		const char *sel;
		unsigned n;
	} cases[] = {
		{ { "hv=kvm,disk=sata", "hv=kvm,disk=ide", "hv=tcg" }, "hv=kvm", 2 },
		{ { "hv=kvm,disk=sata", "hv=kvm,disk=ide", "hv=tcg" }, "hv=kvm,disk=ide", 1 },
		{ { "hv=kvm,disk=sata", "hv=kvm,disk=ide", "hv=tcg" }, "hv=kvm,hv=kvm,disk=sata", 1 },
		{ { "hv=kvm,disk=sata", "hv=kvm,disk=ide", "hv=tcg" }, "disk=sata,disk=ide", 0 },
		{ { "hv=kvm,disk=sata", "hv=kvm,disk=ide", "hv=tcg" }, "hv=kvm,nosuch=1", 0 },
		{ { "k=" LONG300, "k=" LONG300 "y", "hv=tcg" }, "k=" LONG300, 1 },
		{ { KEY127 "=1,hv=kvm", KEY127 "=2", "hv=tcg" }, KEY127 "=1", 1 },
		{ { "hv=kvm", "hv=\xc3\xa9", "disk=ide" }, "hv=\xc3\xa9", 1 },
	};
	char path[256], id[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct db *db;
		int64_t rid;

		snprintf(path, sizeof(path), "%s/sel%zu.db", dir, i);
		assert_int_equal(db_open(path, true, &db), 0);
		for (size_t j = 0; j < 3; j++) {
			json_t *doc;

			snprintf(id, sizeof(id), "%08zx-0000-4000-8000-%012zx", i, j);
			doc = doc_with(id, cases[i].stored[j]);
			assert_int_equal(db_add(db, doc, &rid), 0);
			json_decref(doc);
		}
		if (count_selected(db, cases[i].sel) != cases[i].n)
			fail_msg("selector \"%.60s\": %u runs, expected %u", cases[i].sel, count_selected(db, cases[i].sel),
				 cases[i].n);
		db_close(db);
	}
	/* 2000 parts, 20000 characters: all the same pair, so run 1 matches */
	{
		struct strv f = { 0 };
		struct db *db;
		unsigned n = 0;

		snprintf(path, sizeof(path), "%s/sel0.db", dir);
		assert_int_equal(db_open(path, false, &db), 0);
		for (int k = 0; k < 2000; k++)
			assert_int_equal(strv_push(&f, "disk=sata"), 0);
		assert_int_equal(db_list(db, &f, count_row, &n), 0);
		assert_int_equal(n, 1);
		/* and 2000 different pairs match nothing, without an error */
		strv_clear(&f);
		for (int k = 0; k < 2000; k++) {
			char kv[32];

			snprintf(kv, sizeof(kv), "k%d=v", k);
			assert_int_equal(strv_push(&f, kv), 0);
		}
		n = 0;
		assert_int_equal(db_list(db, &f, count_row, &n), 0);
		assert_int_equal(n, 0);
		strv_clear(&f);
		db_close(db);
	}
}

/* A 0-byte file is an empty SQLite database: read-only it is a store with
 * no runs (and stays 0 bytes), with create it becomes a store. */
static void empty_file(void **state)
{
	char path[256];
	struct db *db;
	struct strv f = { 0 };
	json_t *doc;
	struct stat st;
	unsigned n = 0;
	int64_t id;

	(void)state;
	snprintf(path, sizeof(path), "%s/zero.db", dir);
	write_file(path, "");
	assert_int_equal(db_open(path, false, &db), 0);
	assert_int_equal(db_list(db, &f, count_row, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(db_get(db, "1", &doc), -ENOENT);
	db_close(db);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(db_open(path, true, &db), 0);
	doc = fixture_doc();
	assert_int_equal(db_add(db, doc, &id), 0);
	assert_int_equal(id, 1);
	json_decref(doc);
	db_close(db);
}

/* Paths that cannot be a store are the user's mistake (-EINVAL). */
static void bad_paths(void **state)
{
	static const char *const rel[] = { "", "adir/", "afile/x.db", "afile/sub/x.db" };
	char path[256], file[256];
	struct db *db;

	(void)state;
	snprintf(file, sizeof(file), "%s/afile", dir);
	write_file(file, "x");
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if (*rel[i])
			snprintf(path, sizeof(path), "%s/%s", dir, rel[i]);
		else
			path[0] = '\0';
		if (db_open(path, true, &db) != -EINVAL)
			fail_msg("db_open(\"%s\") is not -EINVAL", path);
		assert_true(db_usage_error(-EINVAL));
	}
	assert_int_equal(db_default_path("", path, sizeof(path)), -EINVAL);
}

/* Processes making their first use of a new store at once: each creates
 * it or finds it made, none fails ("table runs already exists" did). */
static void concurrent_first_use(void **state)
{
	enum { N = 16 };
	char path[256];
	pid_t pids[N];
	int go[2];
	struct db *db;
	struct strv f = { 0 };
	unsigned n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/race/results.db", dir);
	assert_int_equal(pipe(go), 0);
	for (int i = 0; i < N; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char c, id[64];
			json_t *doc;
			int64_t rid;
			int ok;

			close(go[1]);
			/* the barrier: every child waits here until the parent closes its end */
			(void)!read(go[0], &c, 1);
			snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", i);
			doc = doc_with(id, "hv=kvm");
			ok = db_open(path, true, &db) == 0 && db_add(db, doc, &rid) == 0;
			db_close(db);
			json_decref(doc);
			_exit(ok ? 0 : 1);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < N; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("process %d of %d failed on a new store", i, N);
	}
	assert_int_equal(db_open(path, false, &db), 0);
	assert_int_equal(db_list(db, &f, count_row, &n), 0);
	assert_int_equal(n, N);
	db_close(db);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(refuses_foreign_files),
		cmocka_unit_test(default_path),
		cmocka_unit_test(postgres_urls),
		cmocka_unit_test(selectors),
		cmocka_unit_test(long_selectors),
		cmocka_unit_test(empty_file),
		cmocka_unit_test(bad_paths),
		cmocka_unit_test(concurrent_first_use),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
