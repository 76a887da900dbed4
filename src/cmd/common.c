/* Argument parsing, help, signals and report writing shared by the subcommands. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "../core/log.h"
#include "../report/html.h"
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

struct collect {
	struct db *db;
	json_t *docs;
	int r;
};

static int collect_row(const struct db_row *row, void *arg)
{
	struct collect *c = arg;
	char id[32];
	json_t *doc;

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
		r = db_list(*db, &filter, collect_row, &col);
		strv_clear(&filter);
		if (r < 0) {
			json_decref(col.docs);
			return EXIT_FAILED;
		}
		if (json_array_size(col.docs) == 0) {
			json_decref(col.docs);
			return cmd_usage_error(c, "no stored run has the labels %s; 'vmbench results' lists them", word);
		}
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

/* First Ctrl-C (or SIGTERM, SIGHUP): finish cleanly. A second one: the
 * command's async-signal-safe cleanup, then the default action, for a user
 * who will not wait. */
static void (*stop_cleanup)(void);

static void on_stop_signal(int sig)
{
	if (vmb_stop_requested()) {
		if (stop_cleanup)
			stop_cleanup();
		(void)signal(sig, SIG_DFL);
		(void)raise(sig);
		return;
	}
	vmb_request_stop();
}

int cmd_install_stop_signals(void (*cleanup)(void))
{
	struct sigaction sa;

	stop_cleanup = cleanup;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	return 0;
}

int cmd_set_labels(json_t *doc, const struct strv *kv)
{
	json_t *labels = json_object_get(doc, "labels");

	if (!json_is_object(labels)) {
		labels = json_object();
		if (!labels || json_object_set_new(doc, "labels", labels) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < kv->n; i++) {
		const char *eq = strchr(kv->v[i], '=');
		char key[128];

		if (!eq)
			continue; /* OPT_KV rows always have one */
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv->v[i]), kv->v[i]);
		if (json_object_set_new(labels, key, json_string(eq + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cmd_check_output(const struct vmb_cmd *c, const char *out)
{
	if (out && strcmp(out, "-") && access(out, F_OK) == 0)
		return cmd_usage_error(c, "-o: '%s' exists; vmbench writes only new files, choose another name", out);
	return -1;
}

int cmd_write_html(const struct cmp_table *t, const char *title, const char *out, const char *stem)
{
	char *html = NULL, path[4200];
	size_t len = 0;
	FILE *mem = open_memstream(&html, &len);
	int r;

	if (!mem || html_report(mem, t, title) < 0 || fclose(mem) != 0) {
		if (mem)
			(void)fclose(mem);
		free(html);
		log_error("out of memory writing the report");
		return -ENOMEM;
	}
	if (out && !strcmp(out, "-")) {
		r = fwrite(html, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -EIO;
		free(html);
		return r < 0 ? log_errno(r, "writing the report to stdout") : 0;
	}
	if (out) {
		snprintf(path, sizeof(path), "%s", out);
		r = file_write_new(path, html, len);
	} else {
		/* a name of its own: STEM-DATE-TIME.html, numbered if two runs share the second */
		time_t now = time(NULL);
		struct tm tm;
		char base[128];

		gmtime_r(&now, &tm);
		strftime(base, sizeof(base), "%Y%m%d-%H%M%S", &tm);
		r = -EEXIST;
		for (unsigned n = 1; r == -EEXIST && n < 1000; n++) {
			if (n == 1)
				snprintf(path, sizeof(path), "%s-%s.html", stem, base);
			else
				snprintf(path, sizeof(path), "%s-%s-%u.html", stem, base, n);
			r = file_write_new(path, html, len);
		}
	}
	free(html);
	if (r < 0)
		return log_errno(r, "writing the report '%s'%s", path, r == -EEXIST ? " (vmbench writes only new files)" : "");
	log_info("wrote %s (%zu bytes)", path, len);
	return 0;
}
