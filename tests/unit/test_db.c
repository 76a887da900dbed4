/* The SQLite store: round trip, label filters, refusal of foreign files. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
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
		cmocka_unit_test(selectors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
