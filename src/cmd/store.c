/* vmbench store: the result stores themselves. 'store copy FROM TO' moves
 * runs between stores (a file, a PostgreSQL database) without duplicates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../core/log.h"
#include "../core/stop.h"
#include "../store/db.h"
#include "../suites/app.h"
#include "../core/banned.h"

static const struct vmb_opt store_copy_opts[] = {
	{ .name = "select", .type = OPT_STRING, .metavar = "KEY=VALUE[,KEY=VALUE]",
	  .help = "copy only the runs with all these labels, e.g. --select lab=20261206-152137-263e" },
	{ .name = "quiet", .short_name = 'q', .type = OPT_BOOL, .help = "print errors only" },
	{ .name = "verbose", .short_name = 'v', .type = OPT_BOOL, .help = "say each run copied, with its new number" },
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static int cmd_store_copy(const struct vmb_cmd *self, int argc, char **argv);

extern const struct vmb_cmd cmd_store_desc;
const struct vmb_cmd cmd_store_copy_desc = {
	.name = "copy",
	.fn = cmd_store_copy,
	.args = "FROM TO [--select KEY=VALUE[,KEY=VALUE]]",
	.summary = "copy the runs of one store into another, none twice",
	.opts = store_copy_opts,
	.min_args = 2,
	.max_args = 2,
	.parent = &cmd_store_desc,
};

static const struct vmb_opt store_opts[] = {
	{ .name = "help", .short_name = 'h', .type = OPT_BOOL, .help = "show this help" },
	OPT_TABLE_END,
};

static const struct vmb_cmd *const store_verbs[] = { &cmd_store_copy_desc, NULL };

const struct vmb_cmd cmd_store_desc = {
	.name = "store",
	.fn = cmd_dispatch,
	.args = "copy FROM TO",
	.summary = "the result stores: copy runs from one to another (a file, a PostgreSQL database)",
	.description = "A store is an SQLite file (--db PATH, the default ~/.local/share/vmbench/results.db) or a "
		       "PostgreSQL database (--db postgresql://USER@HOST/DB, or VMBENCH_DB), which a team shares: "
		       "every command that takes --db takes either, with the same documents and one transaction "
		       "per run. 'store copy FROM TO' copies each run of FROM (with --select, those with all its "
		       "labels) that TO does not have, told by the document's id (its uuid), which the copy keeps "
		       "with the whole document; its run number is TO's next. Each run is one transaction: an "
		       "interrupted copy leaves whole runs, and running it again copies the rest. A document of "
		       "FROM that is unreadable is said and not copied (exit 1).",
	.opts = store_opts,
	.subcmds = store_verbs,
};

struct copy_state {
	struct strv ids;   /* FROM's run numbers, as text */
	struct strv uuids; /* and their documents' ids */
	size_t unreadable;
};

static int collect(const struct db_row *row, void *arg)
{
	struct copy_state *s = arg;
	char id[32];

	if (row->unreadable) {
		log_error("run %lld of the source: its document is unreadable; not copied", (long long)row->id);
		s->unreadable++;
		return 0;
	}
	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	if (strv_push(&s->ids, id) < 0 || strv_push(&s->uuids, row->uuid ? row->uuid : "") < 0)
		return -ENOMEM;
	return 0;
}

static int open_store(const char *path, bool create, struct db **db)
{
	int r = db_open(path, create, db);

	/* a PostgreSQL store's errors were said, without its password */
	if (r == -ENOENT)
		log_error("%s: no such store", path);
	else if (r < 0 && !db_usage_error(r) && !db_is_postgres(path))
		log_error("%s: cannot be opened: %s", path, strerror(-r));
	return r;
}

static int cmd_store_copy(const struct vmb_cmd *self, int argc, char **argv)
{
	struct optset own;
	struct strv pos, filter = { 0 };
	struct copy_state s = { 0 };
	struct db *from = NULL, *to = NULL;
	size_t copied = 0, had = 0, bad = 0;
	int ret, r;

	ret = cmd_parse(self, argc, argv, &own, NULL, &pos);
	if (ret != CMD_CONTINUE)
		goto out;
	cmd_apply_verbosity(&own);
	if (!strcmp(pos.v[0], pos.v[1])) {
		char *shown = malloc(APP_URL_SHOWN_LEN(pos.v[0]));

		if (shown)
			app_oltp_url_shown(pos.v[0], shown, APP_URL_SHOWN_LEN(pos.v[0]));
		ret = cmd_usage_error(self, "FROM and TO are the same store, %s", shown ? shown : "");
		free(shown);
		goto out;
	}
	if (optset_str(&own, "select")) {
		char why[512];

		if (db_selector_why(optset_str(&own, "select"), why, sizeof(why)) < 0) {
			ret = cmd_usage_error(self, "--select %s: %s", optset_str(&own, "select"), why);
			goto out;
		}
		if (db_parse_selector(optset_str(&own, "select"), &filter) < 0) {
			ret = EXIT_FAILED;
			goto out;
		}
	}
	(void)cmd_install_stop_signals(NULL);
	r = open_store(pos.v[0], false, &from);
	if (r == 0)
		r = open_store(pos.v[1], true, &to);
	if (r < 0) {
		ret = db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
		goto out;
	}
	r = db_list(from, &filter, collect, &s);
	if (r < 0) {
		ret = EXIT_FAILED;
		goto out;
	}
	for (size_t i = 0; i < s.ids.n && !vmb_stop_requested(); i++) {
		json_t *doc = NULL;
		int64_t id;

		/* already there: the same document id */
		if (*s.uuids.v[i] && db_has_uuid(to, s.uuids.v[i]) == 1) {
			had++;
			continue;
		}
		r = db_get(from, s.ids.v[i], &doc);
		if (r == 0)
			r = db_add(to, doc, &id);
		json_decref(doc);
		if (r == -EBADMSG) {
			bad++; /* said by db_get */
			continue;
		}
		if (r < 0) {
			log_error("copying run %s of %s: %s", s.ids.v[i], db_name(from), strerror(-r));
			ret = EXIT_FAILED;
			goto said;
		}
		copied++;
		log_debug("run %s of %s: stored as run %lld of %s", s.ids.v[i], db_name(from), (long long)id,
			 db_name(to));
	}
	ret = vmb_stop_requested() ? EXIT_INTERRUPTED : s.unreadable + bad ? EXIT_FAILED : EXIT_OK;
said:
	printf("copied %zu run%s into %s; %zu already there%s", copied, copied == 1 ? "" : "s", db_name(to), had,
	       s.unreadable + bad ? "" : "\n");
	if (s.unreadable + bad)
		printf("; %zu unreadable, not copied\n", s.unreadable + bad);
	if (ret == EXIT_INTERRUPTED)
		printf("interrupted: each run copied is whole; the same command copies the rest\n");
out:
	db_close(from);
	db_close(to);
	strv_clear(&s.ids);
	strv_clear(&s.uuids);
	strv_clear(&filter);
	cmd_release(&own, NULL, &pos);
	return ret;
}
