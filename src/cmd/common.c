/* Argument parsing and help shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "../core/log.h"
#include "../store/db.h"
#include "../store/doc.h"
#include "../suites/suites.h"
#include "../core/banned.h"

int cmd_argc;
char **cmd_argv;

const struct vmb_cmd *cmd_find(const char *name)
{
	for (const struct vmb_cmd *c = vmb_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_usage_error(const struct vmb_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fputs("vmbench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee 'vmbench %s --help'\n", c ? c->name : "");
	return EXIT_USAGE;
}

void cmd_print_help(const struct vmb_cmd *c)
{
	printf("usage: vmbench %s %s\n\n%s\n\n", c->name, c->args, c->summary);
	if (c->description)
		printf("%s\n\n", c->description);
	printf("options:\n");
	opts_print_help(stdout, c->opts, "");
	if (c->flags & CMD_SUITE_OPTS)
		printf("\nsuite options (--SUITE.OPTION VALUE): see 'vmbench list'\n");
}

void cmd_apply_verbosity(const struct optset *own)
{
	if (optset_bool(own, "quiet"))
		log_set_level(LOG_ERROR);
	else if (optset_bool(own, "verbose"))
		log_set_level(LOG_DEBUG);
	else
		log_set_level(LOG_INFO);
}

int cmd_parse(const struct vmb_cmd *c, int argc, char **argv, struct optset *own,
	      struct optset *suite_sets, struct strv *positional)
{
	struct optset *sets;
	char err[512];
	size_t n = 1;
	int r;

	memset(own, 0, sizeof(*own));
	memset(positional, 0, sizeof(*positional));
	if (suite_sets)
		memset(suite_sets, 0, vmb_nsuites * sizeof(*suite_sets));
	sets = calloc(1 + vmb_nsuites, sizeof(*sets));
	if (!sets || optset_init(own, c->opts, "") < 0) {
		free(sets);
		return EXIT_FAILED;
	}
	sets[0] = *own;
	for (size_t i = 0; (c->flags & CMD_SUITE_OPTS) && suite_sets && i < vmb_nsuites; i++) {
		char prefix[48];

		snprintf(prefix, sizeof(prefix), "%s.", vmb_suites[i]->name);
		if (optset_init(&suite_sets[i], vmb_suites[i]->opts, prefix) < 0) {
			free(sets);
			return EXIT_FAILED;
		}
		sets[n++] = suite_sets[i];
	}
	/* The copies in sets share their value arrays with own and suite_sets. */
	r = opts_parse(argc, argv, sets, n, positional, err, sizeof(err));
	free(sets);
	if (r < 0)
		return cmd_usage_error(c, "%s", err);
	if (optset_bool(own, "help")) {
		cmd_print_help(c);
		return EXIT_OK;
	}
	if (c->max_args >= 0 && positional->n > (size_t)c->max_args)
		return cmd_usage_error(c, "unexpected argument '%s'", positional->v[c->max_args]);
	if (positional->n < (size_t)c->min_args)
		return cmd_usage_error(c, "missing argument: vmbench %s %s", c->name, c->args);
	return -1;
}

void cmd_release(struct optset *own, struct optset *suite_sets, struct strv *positional)
{
	optset_release(own);
	for (size_t i = 0; suite_sets && i < vmb_nsuites; i++)
		optset_release(&suite_sets[i]);
	strv_clear(positional);
}

/* Interrupted runs hold only the cases finished before Ctrl-C: a selector
 * leaves them out unless its key "interrupted" asks for them. */
enum { INTERRUPTED_NO, INTERRUPTED_YES, INTERRUPTED_ANY };

struct collect {
	struct db *db;
	json_t *docs;
	int r;
	int interrupted; /* INTERRUPTED_* */
	unsigned left_out;
};

/* Take "interrupted=no|yes|any" out of the label filter: 0, or -EINVAL. */
static int take_interrupted_key(struct strv *filter, int *want)
{
	static const char *const values[] = { [INTERRUPTED_NO] = "no", [INTERRUPTED_YES] = "yes",
					      [INTERRUPTED_ANY] = "any" };

	for (size_t i = 0; i < filter->n; i++) {
		size_t k;

		if (!str_has_prefix(filter->v[i], "interrupted="))
			continue;
		for (k = 0; k < ARRAY_SIZE(values); k++)
			if (!strcmp(filter->v[i] + strlen("interrupted="), values[k]))
				break;
		if (k == ARRAY_SIZE(values))
			return -EINVAL;
		*want = (int)k;
		free(filter->v[i]);
		memmove(&filter->v[i], &filter->v[i + 1], (filter->n - i) * sizeof(*filter->v));
		filter->n--;
		i--;
	}
	return 0;
}

static int collect_row(const struct db_row *row, void *arg)
{
	struct collect *c = arg;
	char id[32];
	json_t *doc;

	if (row->interrupted && c->interrupted == INTERRUPTED_NO) {
		c->left_out++;
		return 0;
	}
	if (!row->interrupted && c->interrupted == INTERRUPTED_YES)
		return 0;

	snprintf(id, sizeof(id), "%lld", (long long)row->id);
	c->r = db_get(c->db, id, &doc);
	if (c->r < 0)
		return c->r;
	json_array_append_new(c->docs, doc);
	return 0;
}

int cmd_load_operand(const struct vmb_cmd *c, const char *word, const char *db_opt, struct db **db,
		     json_t **docs, char *name, size_t namelen)
{
	char path[4096], err[512];
	struct stat st;
	json_t *doc, *arr;
	int r;

	if (stat(word, &st) == 0 && S_ISREG(st.st_mode)) {
		if (doc_load_file(word, &doc, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return EXIT_USAGE;
		}
		arr = json_array();
		json_array_append_new(arr, doc);
		*docs = arr;
		snprintf(name, namelen, "%s", strrchr(word, '/') ? strrchr(word, '/') + 1 : word);
		return -1;
	}
	if (!*db) {
		if (db_default_path(db_opt, path, sizeof(path)) < 0)
			return cmd_usage_error(c, "'%s' is no file, and there is no result store (set --db, VMBENCH_DB or HOME)", word);
		r = db_open(path, false, db);
		if (r == -ENOENT)
			return cmd_usage_error(c, "'%s' is no file, and no result store exists at %s", word, path);
		if (r < 0)
			return db_usage_error(r) ? EXIT_USAGE : EXIT_FAILED;
	}
	if (strchr(word, '=')) {
		struct strv filter = { 0 };
		struct collect col = { .db = *db, .docs = json_array() };

		if (db_parse_selector(word, &filter) < 0) {
			json_decref(col.docs);
			return cmd_usage_error(c, "selector '%s': each part must be KEY=VALUE, e.g. hv=kvm,disk=sata", word);
		}
		if (take_interrupted_key(&filter, &col.interrupted) < 0) {
			strv_clear(&filter);
			json_decref(col.docs);
			return cmd_usage_error(c, "selector '%s': interrupted= takes no (the default), yes (only "
						  "interrupted runs) or any", word);
		}
		r = db_list(*db, &filter, collect_row, &col);
		strv_clear(&filter);
		if (r < 0) {
			json_decref(col.docs);
			return EXIT_FAILED;
		}
		if (json_array_size(col.docs) == 0) {
			json_decref(col.docs);
			if (col.left_out)
				return cmd_usage_error(c, "no complete stored run has the labels %s (%u interrupted "
							  "left out; add interrupted=any to include them)", word,
						       col.left_out);
			return cmd_usage_error(c, "no stored run has the labels %s; 'vmbench results' lists them", word);
		}
		if (col.left_out)
			log_info("%s: %u interrupted run%s left out (add interrupted=any to include)", word,
				 col.left_out, col.left_out == 1 ? "" : "s");
		*docs = col.docs;
		snprintf(name, namelen, "%s", word);
		return -1;
	}
	r = db_get(*db, word, &doc);
	if (r == -ENOENT)
		return cmd_usage_error(c, "'%s' is neither a file, a stored run, nor a KEY=VALUE selector", word);
	if (r < 0)
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
	arr = json_array();
	json_array_append_new(arr, doc);
	*docs = arr;
	snprintf(name, namelen, "run %s", word);
	return -1;
}
