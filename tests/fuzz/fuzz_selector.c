/* Fuzz target for the label selector and run reference parsers: a word
 * given to compare, report, export or `lab report` as "k=v,k2=v2", a run
 * number or an id prefix, and the label grammar (label.h) they share with
 * --label. Checks what db_parse_selector promises, that whatever the
 * grammar takes as a user's label a selector selects (one part, itself),
 * and that the store answers any selector and any reference without an
 * error (an empty in-memory store: the SQL built from them is what is
 * tested). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/log.h"
#include "../../src/store/db.h"
#include "../../src/store/label.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_row(const struct db_row *row, void *arg)
{
	(void)row;
	(*(unsigned *)arg)++;
	return 0;
}

/* What a successful parse promises: the parts joined by ',' are the input,
 * each one KEY=VALUE with one '=', a key of 1 to DB_LABEL_KEY_MAX bytes and
 * a non-empty value. */
static void check_parts(const char *sel, const struct strv *f)
{
	size_t off = 0;
	char why[600];

	if (f->n == 0)
		abort();
	for (size_t i = 0; i < f->n; i++) {
		const char *p = f->v[i], *eq = strchr(p, '=');
		size_t len = strlen(p);

		if (!eq || eq == p || !eq[1] || strchr(eq + 1, '=') || strchr(p, ',') ||
		    (size_t)(eq - p) > DB_LABEL_KEY_MAX)
			abort();
		if (strncmp(sel + off, p, len) || sel[off + len] != (i + 1 < f->n ? ',' : '\0'))
			abort();
		if (label_check_kv(p, LABEL_SELECT, why, sizeof(why)) != 0)
			abort();
		off += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv f = { 0 };
	struct db *db = NULL;
	json_t *doc = NULL;
	unsigned n = 0;
	char *sel;
	int r;

	log_set_level(LOG_QUIET); /* the messages are not what is tested */
	sel = malloc(size + 1);
	if (!sel)
		return 0;
	memcpy(sel, data, size);
	sel[size] = '\0';
	/* a label the grammar takes from a user is one a selector selects: itself, whole */
	{
		char why[600];
		struct strv one = { 0 };
		int set = label_check_kv(sel, LABEL_SET, why, sizeof(why));

		if (set == 0 && label_check_kv(sel, LABEL_SELECT, why, sizeof(why)) != 0)
			abort();
		if (set == 0 && (db_parse_selector(sel, &one) != 0 || one.n != 1 || strcmp(one.v[0], sel)))
			abort();
		strv_clear(&one);
	}
	r = db_parse_selector(sel, &f);
	if (r == 0)
		check_parts(sel, &f);
	else if ((r != -EINVAL && r != -E2BIG) || f.n != 0)
		abort();
	if (db_open(":memory:", true, &db) == 0) {
		if (r == 0 && (db_list(db, &f, count_row, &n) != 0 || n != 0))
			abort();
		if (*sel && db_get(db, sel, &doc) != -ENOENT)
			abort();
		db_close(db);
	}
	json_decref(doc);
	strv_clear(&f);
	free(sel);
	return 0;
}
